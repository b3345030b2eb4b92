#!/usr/bin/python3
"""Drives a WordPress site through the flows a person goes through, in order, and checks what
they would see at each step (tests/wordpress/flows/README.md lists them):

  front, login, dashboard, rest_create_post, front_after, single, comment, comment_approve,
  comment_visible, search, category, feed, date_archive, admin_posts, admin_comments,
  site_health, cron

One JSON line per step: {"flow", "status", "ms", "ok", "detail"}; no answer may be a 5xx.
Exits 1 on the first failure (2 for bad arguments). Every request carries the header
X-Berth-Flow: <step>, which the flows' logging drop-in uses as the statement's flow label.

  drive.py --base http://127.0.0.1:8080 --user admin --password secret [--host-header wp.test]

--host-header: the site answers by Host on a loopback address (Berth's edge): requests go to
--base with that Host, and the site's own absolute links to that host are followed on --base.
Standard library only."""

import argparse
import html
import html.parser
import http.client
import http.cookiejar
import json
import re
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

USER_AGENT = "berth-flows/1 (drive.py)"


class StepFailed(Exception):
    pass


class Page:
    def __init__(self, url, status, headers, body):
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")

    def json(self):
        try:
            return json.loads(self.body)
        except ValueError:
            raise StepFailed("expected JSON from %s, got: %s" % (self.url, self.text[:300]))


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Forms(html.parser.HTMLParser):
    """The forms of a page: their action and their named inputs' default values."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"id": a.get("id"), "action": a.get("action"), "fields": {}})
        elif tag in ("input", "textarea", "select") and self.forms and a.get("name"):
            if a.get("type") in ("checkbox", "radio") and "checked" not in a:
                return
            self.forms[-1]["fields"].setdefault(a["name"], a.get("value") or "")


class Title(html.parser.HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.title = None

    def handle_starttag(self, tag, attrs):
        if tag == "title" and self.title is None:
            self.inside = True
            self.title = ""

    def handle_endtag(self, tag):
        if tag == "title":
            self.inside = False

    def handle_data(self, data):
        if self.inside:
            self.title += data


def title_of(page):
    p = Title()
    p.feed(page.text)
    return (p.title or "").strip()


class Browser:
    """One person's browser: a cookie jar, redirects followed by hand (so the site's absolute
    links to --host-header stay on --base), every answer recorded for the 5xx rule."""

    def __init__(self, base, host_header=None, timeout=60):
        self.base = base.rstrip("/")
        self.base_parts = urllib.parse.urlsplit(self.base)
        self.host_header = host_header
        self.timeout = timeout
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar), NoRedirect())
        self.flow = "unlabelled"
        self.statuses = []

    def url(self, path_or_url):
        """An address on the site: a path, or an absolute URL of the site (its own host, the
        Host header's, or --base's) rewritten onto --base. None for another site."""
        if path_or_url.startswith("/"):
            return self.base + path_or_url
        parts = urllib.parse.urlsplit(path_or_url)
        own = {self.base_parts.netloc}
        if self.host_header:
            own.add(self.host_header)
        if parts.netloc not in own:
            return None
        return urllib.parse.urlunsplit((self.base_parts.scheme, self.base_parts.netloc, parts.path, parts.query, ""))

    def request(self, method, target, data=None, headers=None, follow=True, expect=None):
        url = self.url(target) if "://" in target or target.startswith("/") else self.base + "/" + target
        if url is None:
            raise StepFailed("refusing to leave the site for %s" % target)
        for _ in range(10):
            body = None
            h = {"User-Agent": USER_AGENT, "X-Berth-Flow": self.flow}
            if self.host_header:
                h["Host"] = self.host_header
            if isinstance(data, dict):
                body = urllib.parse.urlencode(data).encode()
                h["Content-Type"] = "application/x-www-form-urlencoded"
            elif data is not None:
                body = json.dumps(data).encode()
                h["Content-Type"] = "application/json"
            h.update(headers or {})
            req = urllib.request.Request(url, data=body, headers=h, method=method)
            try:
                with self.opener.open(req, timeout=self.timeout) as r:
                    page = Page(url, r.status, r.headers, r.read())
            except urllib.error.HTTPError as e:
                page = Page(url, e.code, e.headers, e.read())
            except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
                raise StepFailed("%s %s: %s: %s" % (method, url, type(e).__name__, e))
            self.statuses.append(page.status)
            if page.status >= 500:
                raise StepFailed("%s %s answered %d: %s" % (method, url, page.status, snippet(page.text)))
            location = page.headers.get("Location")
            if follow and page.status in (301, 302, 303, 307, 308) and location:
                next_url = self.url(urllib.parse.urljoin(url, location))
                if next_url is None:
                    raise StepFailed("%s %s redirected off the site to %s" % (method, url, location))
                url = next_url
                if page.status in (301, 302, 303):
                    method, data = "GET", None
                continue
            break
        else:
            raise StepFailed("too many redirects from %s" % target)
        if expect is not None and page.status not in ((expect,) if isinstance(expect, int) else expect):
            raise StepFailed("%s %s answered %d (expected %s): %s" % (method, page.url, page.status, expect, snippet(page.text)))
        return page

    def get(self, target, **kw):
        return self.request("GET", target, **kw)

    def post(self, target, data, **kw):
        return self.request("POST", target, data=data, **kw)


def snippet(text, n=300):
    text = re.sub(r"<[^>]+>", " ", text)
    return re.sub(r"\s+", " ", html.unescape(text)).strip()[:n]


def must(condition, message):
    if not condition:
        raise StepFailed(message)


def contains(page, needle, what):
    must(needle in page.text, "%s: %r not on %s (title %r): %s" % (what, needle, page.url, title_of(page), snippet(page.text)))


def rest_nonce(page):
    """The REST nonce the admin's scripts use: wpApiSettings.nonce, or the apiFetch nonce
    middleware's."""
    m = re.search(r"wpApiSettings\s*=\s*(\{.*?\})\s*;", page.text)
    if m:
        try:
            return json.loads(m.group(1))["nonce"]
        except (ValueError, KeyError):
            pass
    m = re.search(r'createNonceMiddleware\(\s*"([0-9a-f]+)"\s*\)', page.text)
    if m:
        return m.group(1)
    raise StepFailed("no REST nonce (wpApiSettings.nonce) on %s" % page.url)


def js_object(page, name):
    m = re.search(r"var\s+%s\s*=\s*(\{.*?\});\s*\n" % re.escape(name), page.text, re.S)
    if not m:
        raise StepFailed("no %s object on %s" % (name, page.url))
    try:
        return json.loads(m.group(1))
    except ValueError as e:
        raise StepFailed("%s on %s is not JSON: %s" % (name, page.url, e))


class Flows:
    def __init__(self, args):
        self.args = args
        self.admin = Browser(args.base, args.host_header)
        self.word = args.tag or "Berth%d" % int(time.time())
        self.post = None
        self.comment_id = None
        self.comment_text = "A comment from a visitor, %s." % self.word
        self.nonce = None

    def steps(self):
        return [
            ("front", self.front), ("login", self.login), ("dashboard", self.dashboard),
            ("rest_create_post", self.create_post), ("front_after", self.front_after),
            ("single", self.single), ("comment", self.comment), ("comment_held", self.comment_held), ("comment_approve", self.approve),
            ("comment_visible", self.comment_visible), ("search", self.search),
            ("category", self.category), ("feed", self.feed), ("date_archive", self.date_archive),
            ("admin_posts", self.admin_posts), ("admin_comments", self.admin_comments),
            ("site_health", self.site_health), ("cron", self.cron),
        ]

    def front(self, b):
        page = b.get("/", expect=200)
        title = title_of(page)
        must(title, "the front page has no <title>")
        if self.args.site_title:
            must(self.args.site_title in title, "front page title %r lacks %r" % (title, self.args.site_title))
        contains(page, "Hello world!", "the first post on the front page")
        return page, "title %r, Hello world! listed" % title

    def login(self, b):
        form_page = b.get("/wp-login.php", expect=200)
        forms = Forms()
        forms.feed(form_page.text)
        login = next((f for f in forms.forms if f["id"] == "loginform"), None)
        must(login is not None, "no login form on wp-login.php")
        fields = dict(login["fields"])
        fields.update({"log": self.args.user, "pwd": self.args.password})
        fields.setdefault("testcookie", "1")
        page = b.post("/wp-login.php", fields, follow=False)
        location = page.headers.get("Location") or ""
        must(page.status == 302 and "/wp-admin" in location,
             "login was refused (%d, to %r): %s" % (page.status, location, snippet(page.text)))
        must(any(c.name.startswith("wordpress_logged_in_") for c in b.jar), "no logged-in cookie after login")
        self.dashboard_url = location
        return page, "logged in as %s, sent to %s" % (self.args.user, urllib.parse.urlsplit(location).path)

    def dashboard(self, b):
        page = b.get(self.dashboard_url, expect=200)
        title = title_of(page)
        must("Dashboard" in title, "the dashboard's title is %r" % title)
        self.nonce = rest_nonce(page)
        return page, "title %r, REST nonce found" % title

    def create_post(self, b):
        title = "Flows post %s" % self.word
        page = b.post("/wp-json/wp/v2/posts", {
            "title": title, "status": "publish",
            "content": "<!-- wp:paragraph -->\n<p>Written by the flows driver, %s.</p>\n<!-- /wp:paragraph -->" % self.word,
        }, headers={"X-WP-Nonce": self.nonce}, expect=201)
        post = page.json()
        must(post.get("id") and post.get("link"), "the created post has no id or link: %s" % snippet(page.text))
        must(post.get("title", {}).get("raw") == title, "the created post's title is %r" % post.get("title"))
        must(post.get("status") == "publish", "the created post's status is %r" % post.get("status"))
        self.post = post
        self.post_title = title
        return page, "post %d at %s" % (post["id"], post["link"])

    def front_after(self, b):
        page = b.get("/", expect=200)
        contains(page, self.post_title, "the new post on the front page")
        contains(page, "Hello world!", "the first post on the front page")
        return page, "the new post listed"

    def single(self, b):
        link = self.post["link"]
        path = urllib.parse.urlsplit(link).path
        must(path not in ("", "/") and "?p=" not in link, "the post's link is not a pretty permalink: %s" % link)
        page = b.get(link, expect=200)
        contains(page, self.post_title, "the post's title on its page")
        contains(page, "Written by the flows driver", "the post's content on its page")
        must(self.post_title in title_of(page), "the single post's <title> is %r" % title_of(page))
        self.single_page = page
        return page, "the post at %s" % path

    def comment(self, b):
        # A visitor with a fresh cookie jar fills in the form the post's page showed.
        self.visitor = Browser(self.args.base, self.args.host_header)
        self.visitor.flow = b.flow
        forms = Forms()
        forms.feed(self.single_page.text)
        form = next((f for f in forms.forms if f["id"] == "commentform"), None)
        must(form is not None, "no comment form on the post's page")
        fields = {k: v for k, v in form["fields"].items() if k in ("comment_post_ID", "comment_parent")}
        must(fields.get("comment_post_ID") == str(self.post["id"]), "the comment form is for post %r" % fields.get("comment_post_ID"))
        fields.update({"author": "Ada Visitor", "email": "ada@example.com", "url": "", "comment": self.comment_text})
        page = self.visitor.post("/wp-comments-post.php", fields, follow=False)
        self.admin.statuses += self.visitor.statuses
        location = page.headers.get("Location") or ""
        must(page.status == 302, "the comment was not accepted (%d): %s" % (page.status, snippet(page.text)))
        query = urllib.parse.parse_qs(urllib.parse.urlsplit(location).query)
        m = re.search(r"#comment-(\d+)$", location)
        cid = (query.get("unapproved") or [None])[0] or (m.group(1) if m else None)
        must(cid, "no comment id after posting the comment (sent to %s)" % location)
        self.comment_id = int(cid)
        self.comment_location = location
        return page, "comment %d posted" % self.comment_id

    def comment_held(self, b):
        self.visitor.flow = b.flow
        page = self.visitor.get(self.comment_location, expect=200)
        self.admin.statuses += self.visitor.statuses
        contains(page, "awaiting moderation", "the held comment's notice")
        contains(page, self.comment_text, "the visitor's own held comment")
        return page, "comment %d shown to its author, awaiting moderation" % self.comment_id

    def approve(self, b):
        page = b.post("/wp-json/wp/v2/comments/%d" % self.comment_id, {"status": "approved"},
                      headers={"X-WP-Nonce": self.nonce}, expect=200)
        must(page.json().get("status") == "approved", "the comment's status is %r" % page.json().get("status"))
        return page, "comment %d approved" % self.comment_id

    def comment_visible(self, b):
        visitor = Browser(self.args.base, self.args.host_header)
        visitor.flow = b.flow
        page = visitor.get(self.post["link"], expect=200)
        self.admin.statuses += visitor.statuses
        contains(page, self.comment_text, "the approved comment on the post's page")
        return page, "the comment shows to a visitor"

    def search(self, b):
        page = b.get("/?s=" + urllib.parse.quote(self.word), expect=200)
        contains(page, self.post_title, "the post in the search results")
        return page, "found by ?s=%s" % self.word

    def category(self, b):
        page = b.get("/category/uncategorized/", expect=200)
        contains(page, self.post_title, "the post in its category")
        contains(page, "Hello world!", "the first post in its category")
        return page, "both posts in Uncategorized"

    def feed(self, b):
        page = b.get("/feed/", expect=200)
        must("xml" in (page.headers.get("Content-Type") or ""), "the feed's type is %r" % page.headers.get("Content-Type"))
        must("<rss" in page.text, "the feed is not RSS: %s" % page.text[:200])
        contains(page, "<title>" + html.escape(self.post_title, quote=False), "the post in the feed")
        return page, "RSS with the post"

    def date_archive(self, b):
        date = self.post["date"]  # site-local ISO time
        path = "/%s/%s/" % (date[0:4], date[5:7])
        page = b.get(path, expect=200)
        contains(page, self.post_title, "the post in its month's archive")
        return page, "the post in %s" % path

    def admin_posts(self, b):
        page = b.get("/wp-admin/edit.php", expect=200)
        must("Posts" in title_of(page), "the post list's title is %r" % title_of(page))
        contains(page, html.escape(self.post_title, quote=False), "the post in the admin's post list")
        contains(page, "Hello world!", "the first post in the admin's post list")
        return page, "both posts listed"

    def admin_comments(self, b):
        page = b.get("/wp-admin/edit-comments.php", expect=200)
        must("Comments" in title_of(page), "the comment list's title is %r" % title_of(page))
        contains(page, html.escape(self.comment_text, quote=False), "the visitor's comment in the admin's list")
        return page, "the visitor's comment listed"

    def site_health(self, b):
        page = b.get("/wp-admin/site-health.php", expect=200)
        must("Site Health" in title_of(page), "the site health title is %r" % title_of(page))
        health = js_object(page, "SiteHealth")
        tests = health.get("site_status", {}).get("async", [])
        must(tests, "site health lists no asynchronous tests")
        nonce = rest_nonce(page)
        done = []
        for test in tests:
            if not test.get("has_rest"):
                continue
            answer = b.get(test["test"], headers={"X-WP-Nonce": nonce}, expect=200).json()
            must(answer.get("status") in ("good", "recommended", "critical") and answer.get("label"),
                 "site health test %s answered %s" % (test["test"], json.dumps(answer)[:300]))
            done.append("%s=%s" % (answer.get("test"), answer["status"]))
        return page, "tests: " + ", ".join(done)

    def cron(self, b):
        page = b.get("/wp-cron.php?doing_wp_cron=%.4f" % time.time(), expect=200)
        return page, "wp-cron.php ran (%d bytes)" % len(page.body)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--base", required=True, help="the site's address, e.g. http://127.0.0.1:8080")
    parser.add_argument("--user", required=True)
    parser.add_argument("--password", required=True)
    parser.add_argument("--host-header", help="the Host the site answers by, when --base is a loopback address")
    parser.add_argument("--site-title", help="text the front page's <title> must hold")
    parser.add_argument("--tag", help="the word in the new post's title and the search (default Berth<unix time>)")
    parser.add_argument("--only", help="stop after this step (for debugging)")
    parser.add_argument("--skip", default="", help="comma-separated steps to leave out (for debugging)")
    args = parser.parse_args()
    flows = Flows(args)
    browser = flows.admin
    skip = set(filter(None, args.skip.split(",")))
    for name, step in flows.steps():
        if name in skip:
            continue
        browser.flow = name
        started = time.monotonic()
        status, ok, detail = 0, True, ""
        try:
            page, detail = step(browser)
            status = page.status
        except StepFailed as e:
            ok, detail = False, str(e)
            status = browser.statuses[-1] if browser.statuses else 0
        line = {"flow": name, "status": status, "ms": round((time.monotonic() - started) * 1000, 1),
                "ok": ok, "detail": detail}
        print(json.dumps(line), flush=True)
        if not ok:
            return 1
        if args.only and name == args.only:
            break
    return 0


if __name__ == "__main__":
    sys.exit(main())

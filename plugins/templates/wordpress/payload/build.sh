#!/bin/sh
# Builds the shared WordPress tree in the current folder, which holds a copy of this payload.
# Run by the runtime's shared-tree builder (runtime.shared_trees.v1) inside its sandbox, as an
# unprivileged user; it reads Debian's WordPress under /usr (which the sandbox shows read-only)
# and reaches no network. The result is ./site, the folder every WordPress release is made of:
#   - Debian's /usr/share/wordpress (package `wordpress`), with every link replaced by the file
#     it names (getID3 and the JavaScript libraries Debian keeps in /usr/share/php and
#     /usr/share/javascript, the CA bundle in /etc/ssl): a release may hold no link, and a
#     project's sandbox would not show the targets anyway;
#   - without Debian's wp-config.php (a dispatcher to /etc/wordpress/config-<host>.php) and
#     .htaccess (a link to /etc/wordpress, Apache's; hidden files are never served anyway);
#   - the default theme, twentytwentythree (package wordpress-theme-twentytwentythree, installed
#     into Debian's tree);
#   - Berth's wp-config.php, the PostgreSQL drop-in (wp-content/db.php and
#     wp-content/berth-pgsql/), the must-use plugin (wp-content/mu-plugins/berth.php) and the
#     one-off install script (.berth/install.php, hidden: never served, never run by a URL).
# Environment: BERTH_WORDPRESS_VERSION, the upstream version the install checked Debian's
# packages against (6.1.9); BERTH_WORDPRESS_DIR, Debian's tree (/usr/share/wordpress).
set -eu
src=${BERTH_WORDPRESS_DIR:-/usr/share/wordpress}
want=${BERTH_WORDPRESS_VERSION:?BERTH_WORDPRESS_VERSION is not set}

say() { echo "berth wordpress build: $*"; }
fail() {
  echo "berth wordpress build: $*" >&2
  exit 1
}

[ -f "$src/wp-includes/version.php" ] ||
  fail "no WordPress at $src: Debian's wordpress package is not installed (or not visible here)"
got=$(sed -n "s/^\$wp_version = '\([^']*\)';.*/\1/p" "$src/wp-includes/version.php")
[ "$got" = "$want" ] || fail "$src holds WordPress $got, not the pinned $want"
[ -f "$src/wp-content/themes/twentytwentythree/style.css" ] ||
  fail "no theme twentytwentythree in $src: install Debian's wordpress-theme-twentytwentythree"
for f in wp-config.php mu-plugins/berth.php berth-install.php wp-content/db.php \
  wp-content/berth-pgsql/autoload.php; do
  [ -f "$f" ] || fail "the payload has no $f"
done

say "copying WordPress $got from $src"
rm -rf site
mkdir site
# Every entry but the dispatcher; "*" leaves out the hidden .htaccess. -L: a link's target is
# copied in its place.
for entry in "$src"/*; do
  case ${entry##*/} in
  wp-config.php) ;;
  *) cp -RL "$entry" site/ ;;
  esac
done

say "adding Berth's configuration, drop-in and must-use plugin"
cp wp-config.php site/wp-config.php
mkdir -p site/wp-content/mu-plugins site/.berth
cp mu-plugins/berth.php site/wp-content/mu-plugins/berth.php
cp wp-content/db.php site/wp-content/db.php
rm -rf site/wp-content/berth-pgsql
cp -R wp-content/berth-pgsql site/wp-content/berth-pgsql
cp berth-install.php site/.berth/install.php

links=$(find site -type l | head -n 5)
[ -z "$links" ] || fail "links are left in the tree: $links"
say "done: $(find site -type f | wc -l) files, $(du -sh site | cut -f1)"

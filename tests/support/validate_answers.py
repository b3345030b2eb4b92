#!/usr/bin/python3
"""Checks real answers of berthd against the OpenAPI document's response schemas.

usage: validate_answers.py DOCUMENT.json SAMPLES.json
SAMPLES is [{method, path, status, content_type, body}], path as requested (without the
query). Each answer must be documented for its operation and status, with its media type, and
a JSON answer must validate against that response's schema (JSON Schema 2020-12, which
OpenAPI 3.1 uses). Prints one line per problem; exits 1 when there is any.
Debian's python3-jsonschema (scripts/install-deps.sh) does the validation.
"""
import json
import re
import sys

from jsonschema import Draft202012Validator, RefResolver


def template_regex(template):
    # A parameter takes one segment, except the last one, which may hold slashes ({path}).
    parts = re.split(r"(\{[^}]+\})", template)
    out = ""
    for i, part in enumerate(parts):
        if part.startswith("{"):
            out += ".+" if i == len(parts) - 2 and parts[-1] == "" else "[^/]+"
        else:
            out += re.escape(part)
    return re.compile("^" + out + "$")


def find_operation(doc, method, path):
    candidates = []
    for template, item in doc.get("paths", {}).items():
        if not template_regex(template).match(path):
            continue
        literal = len(re.sub(r"\{[^}]+\}", "", template))
        candidates.append((literal, template, item))
    for _, template, item in sorted(candidates, key=lambda c: -c[0]):
        operation = item.get(method.lower())
        if operation is not None:
            return template, operation
    return None, None


def main():
    doc = json.load(open(sys.argv[1]))
    samples = json.load(open(sys.argv[2]))
    resolver = RefResolver.from_schema(doc)
    problems = []
    for s in samples:
        where = f"{s['method']} {s['path']} -> {s['status']}"
        template, operation = find_operation(doc, s["method"], s["path"])
        if operation is None:
            problems.append(f"{where}: no operation in the document")
            continue
        responses = operation.get("responses", {})
        status = str(s["status"])
        response = responses.get(status) or responses.get(status[0] + "XX") or responses.get("default")
        if response is None:
            problems.append(f"{where}: status {status} is not documented for {s['method']} {template}")
            continue
        if "$ref" in response:
            response = resolver.resolve(response["$ref"])[1]
        content = response.get("content")
        media = (s.get("content_type") or "").split(";")[0].strip()
        if not content:
            if s["body"] and status != "204":
                problems.append(f"{where}: the document gives no content, the answer has {media}")
            continue
        schema_holder = content.get(media) or content.get(media.split("/")[0] + "/*") or content.get("*/*")
        if schema_holder is None:
            problems.append(f"{where}: media type {media} is not documented (only {', '.join(content)})")
            continue
        schema = schema_holder.get("schema")
        if schema is None or media != "application/json":
            continue
        try:
            body = json.loads(s["body"])
        except ValueError:
            problems.append(f"{where}: the answer is not JSON: {s['body'][:200]}")
            continue
        validator = Draft202012Validator(schema, resolver=resolver)
        for error in sorted(validator.iter_errors(body), key=lambda e: list(e.path)):
            at = "/".join(str(p) for p in error.path) or "(the answer)"
            problems.append(f"{where} ({template}): at {at}: {error.message}")
    for p in problems:
        print(p)
    print(f"{len(samples)} answers checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

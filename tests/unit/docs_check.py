#!/usr/bin/env python3
"""The documentation against the tree (test docs-check, suite unit): every relative link of the
Markdown files resolves to a file, and to a heading where it names one; docs/ARCHITECTURE.md
names every file of kgt/ and skel/; README.md stays a product page of under 400 lines.
Argument: the source root. Prints each problem; exits 1 if there is one."""
import os
import re
import sys


def slug(heading):
    h = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return h.replace(' ', '-')


def headings(path):
    with open(path, encoding='utf-8') as f:
        return {slug(m.group(1)) for m in re.finditer(r'^#+\s+(.*)$', f.read(), re.M)}


def link_problems(root, md):
    with open(md, encoding='utf-8') as f:
        text = re.sub(r'```.*?```', '', f.read(), flags=re.S)
    for target in re.findall(r'\]\(([^)\s]+)\)', text):
        if re.match(r'[a-z]+:', target):
            continue
        path, _, anchor = target.partition('#')
        dest = os.path.normpath(os.path.join(os.path.dirname(md), path)) if path else md
        if not os.path.exists(dest):
            yield '%s: no such file: %s' % (os.path.relpath(md, root), target)
        elif anchor and dest.endswith('.md') and anchor not in headings(dest):
            yield '%s: no such heading: %s' % (os.path.relpath(md, root), target)


def main(root):
    problems = []
    mds = [os.path.join(root, f) for f in ('README.md', 'HACKING.md', 'CHANGELOG.md')]
    for d in ('docs', 'kgt', 'io', 'bench'):
        full = os.path.join(root, d)
        mds += [os.path.join(full, f) for f in sorted(os.listdir(full)) if f.endswith('.md')]
    for md in mds:
        problems += link_problems(root, md)
    with open(os.path.join(root, 'docs', 'ARCHITECTURE.md'), encoding='utf-8') as f:
        arch = f.read()
    for d in ('kgt', 'skel'):
        for name in sorted(os.listdir(os.path.join(root, d))):
            if name.endswith(('.c', '.h')) and not re.search(r'\b%s\b' % re.escape(name), arch):
                problems.append('docs/ARCHITECTURE.md does not name %s/%s' % (d, name))
    with open(os.path.join(root, 'README.md'), encoding='utf-8') as f:
        lines = len(f.read().splitlines())
    if lines >= 400:
        problems.append('README.md has %d lines: keep it under 400 (details go to docs/)' % lines)
    for p in problems:
        print(p)
    return 1 if problems else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1]))

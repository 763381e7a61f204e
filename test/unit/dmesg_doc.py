#!/usr/bin/env python3
"""The module's kernel-log messages against nowait_aio(4)'s DMESG section.

Every pr_*() format in module/*.c must match one entry heading of the
section, and every heading one format, read as a regular expression in
which a conversion (%s, %u, %ld...) stands for any text.  A heading is the
text of the line after .TP/.TQ with the font macros taken off (an italic
word such as "release" is matched by the conversion it names).  Prints
each mismatch and exits 1 when there is one.
usage: dmesg_doc.py MODULE_DIR MAN_PAGE
"""
import glob
import re
import sys

CALL = re.compile(r'\bpr_(?:emerg|alert|crit|err|warn|notice|info)(?:_once|_ratelimited)?\s*\(')
LITERAL = re.compile(r'\s*"((?:[^"\\]|\\.)*)"')
ARG = re.compile(r'"((?:[^"]|"")*)"|(\S+)')
CONV = re.compile(r'%[-+ #0]*[0-9*]*(?:\.[0-9*]+)?(?:hh|h|ll|l|z|t|j)?[a-zA-Z]')


def formats(mod_dir):
    """(file:line, format) of every pr_*() call whose format is a literal"""
    out = []
    for path in sorted(glob.glob(mod_dir + '/*.c')):
        src = open(path, encoding='utf-8').read()
        for m in CALL.finditer(src):
            pos, text = m.end(), ''
            lit = LITERAL.match(src, pos)
            while lit:
                text += lit.group(1)
                pos = lit.end()
                lit = LITERAL.match(src, pos)
            line = src.count('\n', 0, m.start()) + 1
            out.append(('%s:%d' % (path.split('/')[-1], line), text))
    return out


def pattern(fmt):
    fmt = fmt.replace('\\n', '').replace('\\"', '"')
    pieces = CONV.split(fmt)
    return re.compile('.+'.join(re.escape(p) for p in pieces), re.S)


def plain(line):
    """the text of one groff line: font macros off, escapes resolved"""
    line = line.replace('\\-', '-').replace('\\(aq', "'").replace('\\&', '')
    if line.startswith('.'):
        macro, _, rest = line.partition(' ')
        if macro not in ('.B', '.I', '.BI', '.IB', '.BR', '.RB', '.IR', '.RI'):
            return None
        words = [q.replace('""', '"') if q or not w else w
                 for q, w in ARG.findall(rest)]
        return ''.join(words) if len(macro) == 3 else ' '.join(words)
    return line


def headings(man):
    lines = open(man, encoding='utf-8').read().split('\n')
    start = lines.index('.SH DMESG')
    out = []
    for i in range(start + 1, len(lines)):
        if lines[i].startswith('.SH'):
            break
        if lines[i] in ('.TP', '.TQ') and i + 1 < len(lines):
            text = plain(lines[i + 1])
            if text is not None:
                out.append(text)
    return out


def main():
    fmts = formats(sys.argv[1])
    heads = headings(sys.argv[2])
    bad = 0
    for where, fmt in fmts:
        if not fmt:
            print('%s: a pr_*() call whose format is not a literal' % where)
            bad = 1
        elif not any(pattern(fmt).fullmatch(h) for h in heads):
            print('%s: not in the man page: "%s"' % (where, fmt))
            bad = 1
    for h in heads:
        if not any(pattern(f).fullmatch(h) for _, f in fmts if f):
            print('man page: no message of the module reads "%s"' % h)
            bad = 1
    print('%d messages, %d headings' % (len(fmts), len(heads)))
    return bad


if __name__ == '__main__':
    sys.exit(main())

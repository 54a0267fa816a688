#!/usr/bin/env python3
"""NSPA's manual pages (docs/packaging.md).

  man.py build SRCDIR OUTDIR LIBNSPA WIN32INC   scdoc every SRCDIR/*.<sec>.scd into
        OUTDIR/man<sec>/, a link page (.so) for every other name of a page's NAME line, and
        the Win32 function list of nspa-win32(7) from the library's exports
  man.py check OUTDIR LIBNSPA                   every exported nspa_* symbol has a page or
        a link page that resolves, and `man -l` renders every page without a warning

A page documents a group of related functions: its NAME line lists them all
("nspa_wait_any, nspa_wait_all - ..."), and each name but the first gets a link page.
"""
import concurrent.futures
import os
import re
import subprocess
import sys

PLACEHOLDER = "@WIN32_FUNCTIONS@"


def exports(lib):
    """Defined dynamic symbols of the library (names, without versions)."""
    out = subprocess.run(["nm", "-D", "--defined-only", lib], check=True,
                         capture_output=True, text=True).stdout
    # type A: the version nodes themselves (NSPA_1.0 ...)
    return sorted({line.split()[-1].split("@")[0] for line in out.splitlines()
                   if line.strip() and line.split()[-2] != "A"})


def name_line(text):
    """The names of a page's NAME section: 'a, b - what' -> [a, b]."""
    m = re.search(r"^# NAME\s*\n\s*\n?(.+?) - ", text, re.M)
    if not m:
        return []
    return [n.strip().replace("\\_", "_") for n in m.group(1).split(",") if n.strip()]


def win32_list(lib, inc):
    """scdoc text: the Win32/NT functions NSPA exports, grouped by the SDK header that
    declares them; the nspa_ws_* symbols are the Winsock names bound by asm labels."""
    headers = {}
    for f in sorted(os.listdir(inc)):
        if f.endswith(".h"):
            with open(os.path.join(inc, f), encoding="utf-8") as fh:
                headers[f] = fh.read()
    groups = {}
    for name in exports(lib):
        if name.startswith("nspa_ws_"):
            groups.setdefault("winsock2.h", []).append(name[len("nspa_ws_"):])
            continue
        if name.startswith("nspa_"):
            continue
        where = "(not declared in a header)"
        for f, text in headers.items():
            if re.search(r"\b%s\s*\(" % re.escape(name), text):
                where = f
                break
        groups.setdefault(where, []).append(name)
    out = []
    total = 0
    for f in sorted(groups):
        names = sorted(set(groups[f]))
        total += len(names)
        out.append("*%s* (%d)\n\n%s\n" % (f, len(names), ", ".join(n.replace("_", "\\_") for n in names)))
    return "%d functions, by header:\n\n" % total + "\n".join(out)


def build(srcdir, outdir, lib, inc):
    pages = []
    for f in sorted(os.listdir(srcdir)):
        m = re.match(r"(.+)\.([1-8])\.scd$", f)
        if not m:
            continue
        name, sec = m.groups()
        with open(os.path.join(srcdir, f), encoding="utf-8") as fh:
            text = fh.read()
        if PLACEHOLDER in text:
            text = text.replace(PLACEHOLDER, win32_list(lib, inc))
        d = os.path.join(outdir, "man" + sec)
        os.makedirs(d, exist_ok=True)
        r = subprocess.run(["scdoc"], input=text, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit("man: scdoc failed on %s: %s" % (f, r.stderr.strip()))
        # no hyphenation and a ragged right edge: function names stay whole
        roff = re.sub(r"^(\.TH .*\n)", r"\1.nh\n.ad l\n", r.stdout, count=1, flags=re.M)
        with open(os.path.join(d, "%s.%s" % (name, sec)), "w", encoding="utf-8") as fh:
            fh.write(roff)
        pages.append((name, sec))
        for alias in name_line(text):
            if alias == name:
                continue
            with open(os.path.join(d, "%s.%s" % (alias, sec)), "w", encoding="utf-8") as fh:
                fh.write(".so man%s/%s.%s\n" % (sec, name, sec))
        # the Winsock names are exported as nspa_ws_<name> (asm labels, winsock2.h)
        if name == "nspa-win32":
            d3 = os.path.join(outdir, "man3")
            os.makedirs(d3, exist_ok=True)
            for s in exports(lib):
                if s.startswith("nspa_ws_"):
                    with open(os.path.join(d3, s + ".3"), "w", encoding="utf-8") as fh:
                        fh.write(".so man%s/%s.%s\n" % (sec, name, sec))
    print("man: %d pages" % len(pages))


def resolve(outdir, path, depth=0):
    """The page a (link) page finally names, or None."""
    if not os.path.isfile(path) or depth > 4:
        return None
    with open(path, encoding="utf-8") as fh:
        first = fh.readline()
    if first.startswith(".so "):
        return resolve(outdir, os.path.join(outdir, first[4:].strip()), depth + 1)
    return path


def check(outdir, lib):
    fail = 0
    missing = []
    for s in exports(lib):
        if not s.startswith("nspa_"):
            continue
        if resolve(outdir, os.path.join(outdir, "man3", s + ".3")) is None:
            missing.append(s)
    if missing:
        print("man: exported nspa_* symbols without a page: " + " ".join(missing))
        print("man: add the name to the NAME and SYNOPSIS of the page of its group (man/*.scd)")
        fail = 1
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8", MAN_DISABLE_SECCOMP="1")
    pages = [os.path.join(sec, f) for sec in sorted(os.listdir(outdir))
             if sec.startswith("man") and os.path.isdir(os.path.join(outdir, sec))
             for f in sorted(os.listdir(os.path.join(outdir, sec)))]

    def render(page):
        # man -l resolves a link page's .so relative to the current folder
        return subprocess.run(["man", "--warnings", "-l", page], cwd=outdir, env=env,
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for page, r in zip(pages, pool.map(render, pages)):
            if r.returncode != 0 or r.stderr.strip():
                print("man: %s: %s" % (page, r.stderr.strip() or "exit %d" % r.returncode))
                fail = 1
    n = len(pages)
    if fail:
        sys.exit(1)
    print("man: every exported nspa_* symbol has a page; %d pages and links render without warnings" % n)


def main(argv):
    if len(argv) == 5 and argv[0] == "build":
        build(*argv[1:])
    elif len(argv) == 3 and argv[0] == "check":
        check(*argv[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

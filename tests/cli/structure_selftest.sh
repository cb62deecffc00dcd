#!/usr/bin/env bash
# tests/tools/structure.py on a small tree of its own, with the cases it misread: braces in
# character and string literals ('{', "}") counted as code (a global after them was missed,
# one inside a function body ended it early), "//" and "/*" inside a string taken for a
# comment, a function whose header line ends with its "{" and a trailing comment (missed), a
# "(" in the trailing comment of a header (the function misnamed and its length cut); and
# what must stay unlisted (a macro ending in "{", a table initializer, const tables); a
# variable of a struct type defined in place (`static struct { ... } x = ...;`, missed) and what
# must not count as one (a typedef, a struct declaration, a const table of such structs).
. "$FP_SRC/tests/cli/lib/common.sh"
fail=0
mkdir -p "$T/src/att"
python3 - "$T/src/att" <<'PY'
import sys
d = sys.argv[1]
body = "\n".join("    x += %d;" % i for i in range(160))
cases = {
    "a.c": "static int fa(int x) // why\n{\n%s\n    return x;\n}\n" % body,
    "b.c": "static int fb(int x) { // why\n%s\n    return x;\n}\n" % body,
    "c.c": "static int fc(int x) /* why */\n{\n%s\n    return x;\n}\n" % body,
    "d.c": "static int fd(int x,\n              int y) /* see g() */\n{\n%s\n    return x;\n}\n" % body,
    "e.c": "static char open_c(void) { return '{'; }\nstatic int counter;\nstatic int fe(int x)\n{\n%s\n    return x;\n}\n" % body,
    "f.c": "static int ff(int x)\n{\n    static int k;\n    char c = '}';\n    const char *s = \"}}\";\n%s\n    return x;\n}\nint g2;\n" % body,
    "g.c": "static const char *const url = \"http://x/*\";\nint g3;\nstatic int short_one(int x) { return x; } /* (a) */\nint g4;\n",
    "h.c": "#define OPEN(a) {\nstatic const int tab[] = {\n    1, 2,\n};\nstatic int fh(int x) /* not long */\n{\n    return x;\n}\n",
    "i.c": "static struct {\n    int n;\n} pool = {0};\ntypedef struct named {\n    int k;\n} named;\nstruct named2 {\n    int j;\n};\nstatic const struct {\n    int v;\n} fixed[] = {{1}};\n",
}
for k, v in cases.items():
    open(f"{d}/{k}", "w").write(v)
PY
out=$(python3 "$FP_SRC/tests/tools/structure.py" "$T")
long=$(echo "$out" | sed -n 's/^long_other *[0-9]*  //p')
glob=$(echo "$out" | sed -n 's/^globals *//p')
expect() { # WHAT TEXT PATTERN
    if echo "$2" | grep -qE -- "$3"; then echo "ok   $1"; else echo "FAIL $1: '$3' not in: $2"; fail=1; fi
}
refuse() {
    if echo "$2" | grep -qE -- "$3"; then echo "FAIL $1: '$3' in: $2"; fail=1; else echo "ok   $1"; fi
}
expect "header with a trailing // comment" "$long" "src/att/a.c:fa 164"
expect "brace on the header line, then a trailing comment" "$long" "src/att/b.c:fb 163"
expect "header with a trailing /* */ comment" "$long" "src/att/c.c:fc 164"
expect "a '(' in a header's trailing comment names nothing" "$long" "src/att/d.c:fd 165"
expect "a body with '}' and \"}}\" is one function" "$long" "src/att/f.c:ff 167"
expect "a '{' literal before a global" "$glob" "src/att/e.c: static int counter;"
expect "globals around a function body with '}' literals" "$glob" "src/att/f.c: static int k;; int g2;"
expect "\"http://x/*\" is no comment" "$glob" "src/att/g.c: int g3;; int g4;"
refuse "short functions, macros, tables" "$long" "short_one|fh|open_c|OPEN|tab"
refuse "const tables are not state" "$glob" "tab|url"
expect "a variable of a struct defined in place" "$glob" "src/att/i.c: static struct \\{ \\.\\.\\. \\} pool"
refuse "a typedef, a struct tag, a const struct table are not state" "$glob" "named|fixed"
n=$(echo "$out" | sed -n 's/^long_other *\([0-9]*\).*/\1/p')
[ "$n" = 6 ] && echo "ok   6 long functions" || { echo "FAIL long_other is $n, expected 6"; fail=1; }
# and the tree itself passes the check it gates
python3 "$FP_SRC/tests/tools/structure.py" "$FP_SRC" --check > /dev/null && echo "ok   the tree: --check clean" ||
    { echo "FAIL the tree: structure.py --check"; fail=1; }
exit $fail

#!/usr/bin/env python3
"""Files and functions of the C++ sources that are longer than the project allows.

Lists every .h/.cc file under the given folders (default: lib services tools) with more than
--max-file-lines lines (900), and every function definition with more than --max-function-lines
lines (120, from the line of its name to its closing brace). Functions are found by their braces,
not by a compiler: a definition is a block at namespace or class level whose head has a
parameter list and is not a class, struct, enum, namespace or initializer.

Usage: scripts/code-size.py [--root DIR] [--max-file-lines N] [--max-function-lines N] [FOLDER...]
Exit status: 0 when nothing is over, 1 otherwise.
"""

import argparse
import os
import re
import sys

NOT_FUNCTIONS = re.compile(r"\b(namespace|class|struct|enum|union|extern)\b|=\s*$"
                           r"|^\s*(if|for|while|switch|do|else|catch|try)\b")


def IsFunctionHead(text):
    """A definition's head: a name with a parameter list, then qualifiers, a trailing return
    type or an initializer list ending in ')'; not a class, enum, namespace or an initializer."""
    if "(" not in text or NOT_FUNCTIONS.search(text):
        return False
    if text.count("(") != text.count(")"):
        return False
    before = text[:text.index("(")]
    if "=" in before.replace("operator", "") and "operator" not in before:
        return False
    tail = text[text.rindex(")") + 1:].strip()
    return re.fullmatch(r"(const|override|final|noexcept|mutable|&|&&|\s|->.*)*", tail) is not None


def strip(line, in_block_comment):
    """The line without comments, string and character literals; and the comment state."""
    out = []
    i, n = 0, len(line)
    while i < n:
        if in_block_comment:
            end = line.find("*/", i)
            if end < 0:
                return "".join(out), True
            i, in_block_comment = end + 2, False
            continue
        c = line[i]
        if line.startswith("//", i):
            break
        if line.startswith("/*", i):
            in_block_comment = True
            i += 2
            continue
        if c == 'R' and line.startswith('R"', i):
            end = line.find(')"', i)
            i = n if end < 0 else end + 2
            out.append('""')
            continue
        if c == "'" and i > 0 and line[i - 1].isalnum():  # a digit separator: 1'000
            out.append(c)
            i += 1
            continue
        if c in "\"'":
            j = i + 1
            while j < n and line[j] != c:
                j += 2 if line[j] == "\\" else 1
            out.append(c + c)
            i = j + 1
            continue
        out.append(c)
        i += 1
    return "".join(out), in_block_comment


def functions(path):
    """(name, first line, line count) of each function definition in the file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    found = []
    depth = 0
    # Braces opened at each depth: True for a scope whose members may be functions (file,
    # namespace, class), False for anything else (a function body, an initializer).
    scopes = [True]
    head = []  # code since the last ';', '{' or '}' at a member-holding depth
    head_start = 0
    open_function = None  # (name, start, depth at which it closes)
    in_comment = False
    for number, raw in enumerate(lines, 1):
        code, in_comment = strip(raw, in_comment)
        if code.lstrip().startswith("#"):
            continue
        for c in code:
            if c == "{":
                text = " ".join(head).strip()
                is_member_scope = scopes[-1] and open_function is None
                if is_member_scope and IsFunctionHead(text):
                    name = re.findall(r"([~\w:]+)\s*\(", text)
                    open_function = (name[0] if name else "?", head_start, depth)
                    scopes.append(False)
                else:
                    scopes.append(is_member_scope and bool(
                        re.search(r"\b(namespace|class|struct|union)\b", text)))
                depth += 1
                head = []
            elif c == "}":
                depth -= 1
                scopes.pop()
                if open_function is not None and depth == open_function[2]:
                    name, start, _ = open_function
                    found.append((name, start, number - start + 1))
                    open_function = None
                head = []
            elif c == ";":
                if open_function is None:
                    head = []
            else:
                if not head or not "".join(head).strip():
                    head_start = number
                head.append(c) if not head else head.__setitem__(-1, head[-1] + c)
        if head:
            head[-1] += " "
    return found, len(lines) - (1 if lines and lines[-1] == "" else 0)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--root", default=os.path.join(os.path.dirname(__file__), ".."))
    parser.add_argument("--max-file-lines", type=int, default=900)
    parser.add_argument("--max-function-lines", type=int, default=120)
    parser.add_argument("folders", nargs="*", default=["lib", "services", "tools"])
    args = parser.parse_args()
    over = 0
    for folder in args.folders:
        for dirpath, _, names in os.walk(os.path.join(args.root, folder)):
            for name in sorted(names):
                if not name.endswith((".h", ".cc")):
                    continue
                path = os.path.join(dirpath, name)
                rel = os.path.relpath(path, args.root)
                found, line_count = functions(path)
                if line_count > args.max_file_lines:
                    print(f"file {rel}: {line_count} lines")
                    over += 1
                for fn, start, length in found:
                    if length > args.max_function_lines:
                        print(f"function {rel}:{start} {fn}: {length} lines")
                        over += 1
    print(f"{over} over the limits (files > {args.max_file_lines} lines, functions > "
          f"{args.max_function_lines} lines)")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())

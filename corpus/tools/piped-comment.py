#!/usr/bin/env python3
"""A raw (uncompressed) profile of about 80 KB, nearly all one comment, for fuzz_file: read
through a pipe, its bytes pass the stream reader's first 64 KiB buffer, which grows; with half
its size as max_input_bytes the growth stops at the limit (libpprof/io.c).
  corpus/tools/piped-comment.py > corpus/file/piped-comment.pb"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from pbwire import Strings, ld, packed, vi  # noqa: E402

s = Strings()
p = ld(1, vi(1, s("samples")) + vi(2, s("count")))
p += ld(2, ld(1, packed([1])) + ld(2, packed([3])))
p += ld(4, vi(1, 1) + ld(4, vi(1, 1) + vi(2, 5)))
p += ld(5, vi(1, 1) + vi(2, s("main")) + vi(4, s("app.c")))
comment = s("piped " + "x" * (80 * 1024))
p += s.encode() + vi(13, comment)
sys.stdout.buffer.write(p)

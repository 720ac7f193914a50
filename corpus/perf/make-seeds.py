#!/usr/bin/env python3
"""Hand-made seeds for fuzz/fuzz_perf.c: perf.data (corpus/perf/[cn]-*.perf) in pipe and file
mode, either byte order, each aimed at one part of the reader (sample fields it skips, records
it counts, attrs and feature sections, and their malformed variants), and perf script text
(script-crafted.txt, n-script-*.txt). Reproducible: run from any
directory, it rewrites the seeds next to itself. See corpus/perf/README.md."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))

# sample_type bits
IP, TID, TIME, ADDR, READ, CALLCHAIN, ID, CPU, PERIOD, STREAM_ID, RAW, BRANCH, REGS_USER, \
    STACK_USER = [1 << i for i in range(14)]
IDENTIFIER = 1 << 16
AUX = 1 << 20
# read_format bits
RF_ENABLED, RF_RUNNING, RF_ID, RF_GROUP, RF_LOST = 1, 2, 4, 8, 16
# attr flag bits (as numbered on a little-endian machine)
FREQ, SAMPLE_ID_ALL = 1 << 10, 1 << 18
CTX_KERNEL, CTX_USER, CTX_HV = 2**64 - 128, 2**64 - 512, 2**64 - 32
CTX_GUEST, CTX_GUEST_KERNEL, CTX_GUEST_USER = 2**64 - 2048, 2**64 - 2176, 2**64 - 2560


class Enc:
    def __init__(self, big=False):
        self.big = big
        self.e = '>' if big else '<'

    def u16(self, v):
        return struct.pack(self.e + 'H', v)

    def u32(self, v):
        return struct.pack(self.e + 'I', v)

    def u64(self, v):
        return struct.pack(self.e + 'Q', v % 2**64)

    def flags(self, v):
        # a big-endian compiler allocates bitfields from each byte's most significant bit
        b = bytes((v >> (8 * i)) & 0xff for i in range(8))
        if self.big:
            b = bytes(int('{:08b}'.format(x)[::-1], 2) for x in b)
        return b

    def attr(self, type=1, config=0, period=1000000, st=IP | TID | TIME | PERIOD, rf=0,
             flags=SAMPLE_ID_ALL, size=128, size_field=None, bst=0, regs=0):
        a = (self.u32(type) + self.u32(size if size_field is None else size_field) +
             self.u64(config) + self.u64(period) + self.u64(st) + self.u64(rf) +
             self.flags(flags) + self.u32(0) + self.u32(0) + self.u64(0) + self.u64(0))
        a += self.u64(bst) + self.u64(regs)
        return (a + bytes(size))[:size]

    def rec(self, type, payload, misc=0, size=None):
        return self.u32(type) + self.u16(misc) + self.u16(8 + len(payload) if size is None
                                                          else size) + payload

    def string(self, s, pad=8):
        b = s.encode() + b'\0'
        b += bytes(-len(b) % pad)
        return self.u32(len(b)) + b


def pid2(e, pid, tid=None):
    return e.u32(pid) + e.u32(pid if tid is None else tid)


def sample(e, st, ip=0x400100, pid=100, time=10, chain=None, sid=None, rest=b'', cpu=1,
           period=1000, addr=0, misc=2):
    """A SAMPLE in perf's field order up to CALLCHAIN, then rest (the fields after it)."""
    p = b''
    if st & IDENTIFIER:
        p += e.u64(sid)
    if st & IP:
        p += e.u64(ip)
    if st & TID:
        p += pid2(e, pid)
    if st & TIME:
        p += e.u64(time)
    if st & ADDR:
        p += e.u64(addr)
    if st & ID:
        p += e.u64(sid)
    if st & STREAM_ID:
        p += e.u64(sid)
    if st & CPU:
        p += e.u32(cpu) + e.u32(0)
    if st & PERIOD:
        p += e.u64(period)
    return e.rec(9, p + rest, misc)


def sample_id(e, st, pid=100, time=1, sid=None):
    """The sample_id_all trailer of a non-sample record."""
    p = b''
    if st & TID:
        p += pid2(e, pid)
    if st & TIME:
        p += e.u64(time)
    if st & ID:
        p += e.u64(sid)
    if st & STREAM_ID:
        p += e.u64(sid)
    if st & CPU:
        p += e.u32(1) + e.u32(0)
    if st & IDENTIFIER:
        p += e.u64(sid)
    return p


def comm(e, pid, name, tail=b'', misc=0, tid=None):
    n = name.encode() + b'\0'
    n += bytes(-len(n) % 8)
    return e.rec(3, pid2(e, pid, tid) + n + tail, misc)


def mmap2(e, pid, start, length, name, tail=b'', misc=2, build_id=None):
    if build_id is None:
        mid = e.u32(8) + e.u32(1) + e.u64(77) + e.u64(0) + e.u32(5) + e.u32(2)
    else:
        mid = bytes([len(build_id), 0, 0, 0]) + (build_id + bytes(20))[:20] + e.u32(5) + e.u32(2)
        misc |= 1 << 14
    n = name.encode() + b'\0'
    n += bytes(-len(n) % 8)
    return e.rec(10, pid2(e, pid) + e.u64(start) + e.u64(length) + e.u64(0) + mid + n + tail,
                 misc)


def mmap1(e, pid, start, length, name, tail=b'', misc=2):
    n = name.encode() + b'\0'
    n += bytes(-len(n) % 8)
    return e.rec(1, pid2(e, pid) + e.u64(start) + e.u64(length) + e.u64(0) + n + tail, misc)


def fork(e, pid, ppid, tid, ptid, time=1, tail=b'', type=7):
    return e.rec(type, e.u32(pid) + e.u32(ppid) + e.u32(tid) + e.u32(ptid) + e.u64(time) + tail)


def pipe(e, attrs, records):
    """Pipe mode: the 16-byte header, then HEADER_ATTR records (attr bytes, ids) and records."""
    out = (b'2ELIFREP' if e.big else b'PERFILE2') + e.u64(16)
    for a, ids in attrs:
        out += e.rec(64, a + b''.join(e.u64(i) for i in ids))
    return out + b''.join(records)


def feature_rec(e, feat, payload):
    return e.rec(80, e.u64(feat) + payload)


def file_mode(e, attrs, records, features=(), attr_size=None, patch=None):
    """File mode: header, attrs with their id sections, data, feature table and sections.
    features: (bit, payload) pairs; patch(header bytearray) may break the header after."""
    asz = attr_size or (len(attrs[0][0]) + 16 if attrs else 144)
    body = bytearray()
    base = 104
    ids_at = []
    for _, ids in attrs:
        ids_at.append(base + len(body))
        body += b''.join(e.u64(i) for i in ids)
    attrs_off = base + len(body)
    for (a, ids), at in zip(attrs, ids_at):
        body += a + e.u64(at) + e.u64(8 * len(ids))
    data_off = base + len(body)
    data = b''.join(records)
    body += data
    table_at = len(body)
    body += bytes(16 * len(features))
    bits = [0, 0, 0, 0]
    for i, (bit, payload) in enumerate(sorted(features)):
        bits[bit // 64] |= 1 << (bit % 64)
        off = base + len(body)
        body[table_at + 16 * i:table_at + 16 * i + 16] = e.u64(off) + e.u64(len(payload))
        body += payload
    h = bytearray((b'2ELIFREP' if e.big else b'PERFILE2') + e.u64(104) + e.u64(asz) +
                  e.u64(attrs_off) + e.u64(asz * len(attrs)) + e.u64(data_off) +
                  e.u64(len(data)) + e.u64(0) + e.u64(0) + b''.join(e.u64(b) for b in bits))
    if patch:
        patch(h)
    return bytes(h) + bytes(body)


def seeds():
    le, be = Enc(False), Enc(True)
    s = {}
    # Sample fields the reader skips or counts, one attr: STREAM_ID, READ (single and group),
    # RAW, BRANCH_STACK with hw_index, REGS_USER, STACK_USER, AUX; callchains through every
    # context marker (kernel, user, hypervisor, guest kernel and user); a LOST too short for
    # its sample id.
    st = IDENTIFIER | IP | TID | TIME | ADDR | ID | STREAM_ID | CPU | PERIOD | READ | CALLCHAIN \
        | RAW | BRANCH | REGS_USER | STACK_USER | AUX
    e = le
    rf = RF_ENABLED | RF_RUNNING | RF_ID | RF_LOST
    a = e.attr(st=st, rf=rf, bst=1 << 17, regs=0b101)
    chain = [CTX_KERNEL, 0xffffffff81000010, CTX_HV, 0x10, CTX_GUEST_KERNEL, 0x20, CTX_GUEST,
             0x28, CTX_GUEST_USER, 0x30, CTX_USER, 0x400100, 0x400200]
    rest = (e.u64(1000) + e.u64(900) + e.u64(5) + e.u64(1) + e.u64(0) +       # READ
            e.u64(len(chain)) + b''.join(e.u64(c) for c in chain) +          # CALLCHAIN
            e.u32(4) + b'rawd' +                                             # RAW
            e.u64(1) + e.u64(0) + e.u64(0x400100) + e.u64(0x400200) + e.u64(0) +  # BRANCH
            e.u64(2) + e.u64(1) + e.u64(2) +                                 # REGS_USER
            e.u64(16) + bytes(16) + e.u64(16) +                              # STACK_USER
            e.u64(8) + bytes(8))                                             # AUX
    rest_nostack = (e.u64(1000) + e.u64(900) + e.u64(5) + e.u64(1) + e.u64(0) + e.u64(0) +
                    e.u32(0) + e.u64(0) + e.u64(0) + e.u64(0) + e.u64(0))
    sid = sample_id(e, st, sid=7)
    s['c-fields'] = pipe(e, [(a, [7])], [
        comm(e, 100, 'prog', sid), mmap2(e, 100, 0x400000, 0x1000, '/bin/prog', sid),
        mmap2(e, 0xffffffff, 0xffffffff81000000, 0x100000, '[kernel.kallsyms]', sid, misc=1),
        sample(e, st, sid=7, rest=rest), sample(e, st, sid=7, time=11, rest=rest_nostack),
        e.rec(2, e.u64(1) + e.u64(0))])
    # READ with a group: two values, then one whose count runs past the sample
    st = IP | TID | TIME | READ
    rf = RF_GROUP | RF_ID | RF_ENABLED
    a = e.attr(st=st, rf=rf)
    grp = e.u64(2) + e.u64(100) + e.u64(1) + e.u64(7) + e.u64(2) + e.u64(8)
    s['c-read-group'] = pipe(e, [(a, [7])], [sample(e, st, rest=grp)])
    s['n-read-group'] = pipe(e, [(a, [7])], [sample(e, st, rest=e.u64(1000) + e.u64(1))])
    a = e.attr(st=st, rf=RF_ID)
    s['n-read-short'] = pipe(e, [(a, [7])], [sample(e, st, rest=e.u32(1))])
    # BRANCH_STACK without hw_index whose count runs past its sample; a RAW size past it
    st = IP | TID | BRANCH
    s['n-branch'] = pipe(e, [(e.attr(st=st), [7])], [sample(e, st, rest=e.u64(5) + bytes(24))])
    st = IP | TID | RAW
    s['n-raw'] = pipe(e, [(e.attr(st=st), [7])], [sample(e, st, rest=e.u32(99) + bytes(4))])
    st = IP | TID | STACK_USER
    s['n-stack'] = pipe(e, [(e.attr(st=st), [7])], [sample(e, st, rest=e.u64(64) + bytes(8))])

    # Two events told apart by IDENTIFIER-less ID (id_pos/id_tail from the first attr), in
    # file mode, big-endian: hardware and raw event names, a sample of an id no attr has, a
    # sample too short to hold its id, records too short for their time; LOST, LOST_SAMPLES,
    # AUX, ITRACE_START, an unknown kernel record, FORK of a new process and EXIT.
    for name, e in (('c-two-events-be', be), ('c-two-events', le)):
        st = IP | TID | TIME | ID | CPU | PERIOD | CALLCHAIN
        a1 = e.attr(type=0, config=0, st=st, flags=SAMPLE_ID_ALL | FREQ, period=4000)
        a2 = e.attr(type=4, config=0x1234, st=st)
        t1 = lambda t: sample_id(e, st, time=t, sid=1)
        cc = e.u64(2) + e.u64(0x400100) + e.u64(0x400200)
        recs = [comm(e, 100, 'prog', t1(1)), mmap2(e, 100, 0x400000, 0x1000, '/bin/prog', t1(2)),
                fork(e, 101, 100, 101, 100, tail=t1(3)),
                comm(e, 101, 'child', t1(4), misc=1 << 13),
                mmap1(e, 101, 0x500000, 0x1000, '/lib/libc.so', t1(5)),
                sample(e, st, sid=1, time=6, rest=cc),
                sample(e, st, sid=2, time=7, pid=101, rest=cc),
                sample(e, st, sid=3, time=8, rest=cc),                # no attr has id 3
                e.rec(9, e.u64(0x400100)),                           # too short for its id
                e.rec(2, e.u64(1) + e.u64(3) + t1(9)),               # LOST
                e.rec(13, e.u64(4) + t1(10)),                        # LOST_SAMPLES
                e.rec(11, e.u64(0) + e.u64(8) + e.u64(0) + t1(11)),  # AUX
                e.rec(12, pid2(e, 100) + t1(12)),                    # ITRACE_START
                e.rec(40, e.u64(0) + t1(13)),                        # unknown kernel record
                e.rec(3, pid2(e, 100) + b'x' + bytes(7)),            # too short for its time
                fork(e, 101, 100, 101, 100, tail=t1(14), type=4),    # EXIT
                e.rec(68, b'')]
        s[name] = file_mode(e, [(a1, [1]), (a2, [2])], recs, features=[
            (3, e.string('host')), (4, e.string('6.1.0')), (5, e.string('6.1')),
            (8, e.string('cpu')), (11, e.u32(2) + e.string('perf') + e.string('record')),
            (12, e.u32(2) + e.u32(len(a1)) + a1 + e.u32(1) + e.string('cycles:u') + e.u64(1) +
             a2 + e.u32(0) + e.string('r1234') ),
            (21, e.u64(1) + e.u64(20)), (29, e.u32(1) + e.u32(1) + e.u64(10**18) + e.u64(1))])
    e = le
    # Two events whose samples carry no id: record_attr cannot tell them apart
    st = IP | TID | TIME
    s['c-no-ids'] = pipe(e, [(e.attr(st=st), [1]), (e.attr(config=1, st=st), [2])], [
        sample(e, st), e.rec(3, pid2(e, 100) + b'prog\0\0\0\0' + e.u64(5))])
    # IDENTIFIER, attrs without sample_id_all (unordered), an attr of the first perf (64 bytes,
    # size field 0), HEADER_ATTR and EVENT_UPDATE naming it, user records: tracing data (its
    # payload skipped), build id, AUXTRACE_INFO/ERROR, AUXTRACE (payload skipped),
    # COMPRESSED, FINISHED_INIT and an unknown user record; mmap2 with a build id, an empty
    # mmap2.
    st = IDENTIFIER | IP | TID | TIME
    a0 = e.attr(st=st, flags=0, size=64, size_field=0)
    upd = e.rec(78, e.u64(2) + e.u64(5) + b'renamed\0')
    bid = e.rec(67, pid2(e, 100)[:4] + bytes(range(1, 21)) + bytes(4) + b'/bin/prog\0\0\0\0\0\0\0',
                misc=2)
    s['c-user-records'] = pipe(e, [(a0, [5])], [
        upd, e.rec(66, e.u32(12) + e.u32(0)) + bytes(16), bid,
        e.rec(70, e.u64(0)), e.rec(72, e.u64(0)), e.rec(71, e.u64(8) + bytes(24)) + bytes(8),
        e.rec(81, bytes(8)), e.rec(82, b''), e.rec(99, b''),
        mmap2(e, 100, 0x400000, 0x1000, '/bin/prog', build_id=bytes(range(20, 40))),
        mmap2(e, 100, 0x600000, 0, '/bin/empty'),
        sample(e, st, sid=5), e.rec(68, b'')])
    # An AUXTRACE whose payload runs past the end
    s['n-auxtrace'] = pipe(e, [(a0, [5])], [e.rec(71, e.u64(4096) + bytes(24)) + bytes(8)])
    # the same in file mode, whose data section lies whole in the file: not a truncated file
    s['n-auxtrace-file'] = file_mode(e, [(a0, [5])], [e.rec(71, e.u64(4096) + bytes(24)) + bytes(8)])
    # A sample too short for its time (and its fields)
    st = IP | TID | TIME
    s['n-sample-short'] = pipe(e, [(e.attr(st=st), [1])], [e.rec(9, e.u64(0x400100))])
    # 65 events of distinct names (a profile holds at most 64 sample types for them)
    s['n-events'] = pipe(e, [(e.attr(type=4, config=i, st=IP | TID), [i]) for i in range(65)],
                         [])
    # More timed records in one round than max_round_records (64 in the harness)
    st = IP | TID | TIME
    a = e.attr(st=st)
    s['c-long-round'] = pipe(e, [(a, [1])], [sample(e, st, time=100 - i) for i in range(70)] +
                             [e.rec(68, b'')])
    # 300 processes forked (the harness allows 256)
    s['n-processes'] = pipe(e, [(e.attr(st=IP | TID), [1])],
                            [fork(e, 1000 + i, 1, 1000 + i, 1) for i in range(300)])
    # Malformed records and attrs, each its own error
    a = e.attr(st=IP | TID)
    one = lambda *r: pipe(e, [(a, [1])], list(r))
    s['n-mmap-short'] = one(e.rec(10, bytes(40)))
    s['n-comm-short'] = one(e.rec(3, bytes(8)))
    s['n-fork-short'] = one(e.rec(7, bytes(8)))
    s['n-attr-short'] = pipe(e, [], [e.rec(64, bytes(40))])
    s['n-attr-size'] = pipe(e, [], [e.rec(64, e.u32(1) + e.u32(512) + bytes(64))])
    s['n-attr-first'] = pipe(e, [], [e.rec(64, e.u32(1) + e.u32(32) + bytes(64))])
    s['n-feature-short'] = one(e.rec(80, e.u32(0)))
    s['n-record-size'] = one(e.rec(9, b'', size=4))
    # smaller than its type's fields (a LOST without its count), once silently skipped
    s['n-lost-short'] = one(e.rec(2, e.u64(1)))
    # samples of an attr whose sample_type is 0: no address, no callchain
    s['n-sample-type0'] = file_mode(e, [(e.attr(st=0), [1])], [e.rec(9, b'')] * 3)
    # file mode: a record whose size (8) is less than its length; the walk lands inside it, on
    # bytes that read as a record longer than the rest of the data section: the data section
    # lies whole in the file, so it is not a truncated file
    st = IP | TID
    s['n-record-tile'] = file_mode(e, [(e.attr(st=st), [1])], [
        sample(e, st), e.rec(69, e.u32(60) + e.u16(0) + e.u16(0xfff8) + bytes(8), size=8),
        sample(e, st), sample(e, st)])
    s['n-tail'] = one(sample(e, IP | TID)) + bytes(5)
    for feat, name, payload in (
            (11, 'cmdline-short', b'\0'), (11, 'cmdline', e.u32(2) + e.string('perf')),
            (12, 'desc-short', e.u32(1)), (12, 'desc-attr', e.u32(1) + e.u32(4096) + bytes(8)),
            (12, 'desc-name', e.u32(1) + e.u32(8) + bytes(8) + e.u32(0) + e.u32(99)),
            (12, 'desc-ids', e.u32(1) + e.u32(8) + bytes(8) + e.u32(9) + e.string('x')),
            (2, 'build-id', e.rec(67, bytes(20))), (3, 'string', e.u32(99) + b'host')):
        s['n-feat-' + name] = one(feature_rec(e, feat, payload))
    # File-mode headers: each check of perf__read_file_header
    st = IP | TID
    a = e.attr(st=st)
    recs = [sample(e, st)]
    good = lambda **k: file_mode(e, [(a, [1])], recs, **k)

    def at(off, v):
        return lambda h: h.__setitem__(slice(off, off + 8), e.u64(v))
    s['n-hdr-tiny'] = b'PERFILE2' + bytes(4)
    s['n-hdr-size'] = good(patch=at(8, 50))
    s['n-hdr-attrs-past'] = good(patch=at(32, 10**6))
    s['n-hdr-data-past'] = good(patch=at(40, 10**6))
    s['n-hdr-attr-size'] = good(patch=at(16, 40))
    s['n-hdr-attrs-multiple'] = good(patch=at(32, 143))
    s['n-hdr-no-attrs'] = file_mode(e, [], recs)
    # an ids section that lies past the end of the file
    f = bytearray(good())
    f[104 + 8 + len(a):104 + 8 + len(a) + 8] = e.u64(10**6)
    s['n-hdr-ids-past'] = bytes(f)
    # a feature bit without its section entry, and an entry past the end
    f = bytearray(good())
    f[72:80] = e.u64(1 << 3 | 1 << 4)
    s['n-hdr-feature-entry'] = bytes(f)
    s['n-hdr-feature-past'] = good(features=[(3, e.string('h'))])[:-4]
    s = {k + '.perf': v for k, v in s.items()}

    # perf script text: no comm field, a frame on the header line (no -g), lines that are not
    # samples (an indented line before any sample, a header without a pid or with an empty
    # one, one with a token it does not know, a frame without an address), trailing spaces,
    # comments; a NUL byte; 65 events; text of comments and frames only (not perf script text
    # by its look); the empty input.
    s['script-crafted.txt'] = (
        b'# comment\n'
        b'\t400100 orphan (/bin/prog)\n'
        b'4828 [001] 100.000001:  cpu-clock: \n'
        b'\t    400100 main+0x10 (/bin/prog)\n'
        b'\tzz not-a-frame\n'
        b'\n'
        b'prog 100/101 [002] 100.5: 2000 cpu-clock:  400200 f (/bin/prog)\n'
        b'no pid here\n'
        b'prog 100 ??? cpu-clock:\n'
        b'my prog 7 task-clock:\n'
        b'\t400100 main (/bin/prog)   \n'
        b'prog /5 cpu-clock:\n'
        b'prog 5 cpu-clock:  400100 main (/bin/prog)   \n')
    s['script-comments.txt'] = b'# only comments\n\n\t400100 main (/bin/prog)\n'
    s['empty'] = b''
    s['n-script-nul.txt'] = b'prog 100 cpu-clock:\n\t400100 main (/bin/prog)\n\0\n'
    s['n-script-events.txt'] = b''.join(b'p 1 ev%d:\n\t400100 main (/bin/prog)\n' % i
                                        for i in range(65))
    return s


def main():
    for name, data in sorted(seeds().items()):
        with open(os.path.join(HERE, name), 'wb') as f:
            f.write(data)


if __name__ == '__main__':
    main()

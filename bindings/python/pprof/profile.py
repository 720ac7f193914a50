"""Reading profiles: pprof.read() and the Profile they give."""
import ctypes
import os
from dataclasses import dataclass, field
from typing import Iterator, List, Optional, Tuple, Union

from . import _lib
from ._core import (_Closing, FORMAT_NAMES, PprofError, as_bytes, c_integer, check, fspath_bytes, other_format_possible,
                    read_options, readers_first, take_buffer, write_options)
from ._goread import refuse_invalid
from ._lib import lib


@dataclass(frozen=True)
class ValueType:
    type: str
    unit: str


@dataclass(frozen=True)
class Header:
    period_type: ValueType
    period: int
    time_nanos: int
    duration_nanos: int
    drop_frames: str
    keep_frames: str
    default_sample_type: str
    doc_url: str
    comments: Tuple[str, ...]


@dataclass(frozen=True)
class Mapping:
    id: int
    memory_start: int
    memory_limit: int
    file_offset: int
    filename: str
    build_id: str


@dataclass(frozen=True)
class Frame:
    """One line of a location, resolved: the innermost (inlined) call comes first."""

    function: str
    system_name: str
    filename: str
    line: int
    column: int
    start_line: int
    address: int
    mapping: Optional[Mapping]
    inlined: bool  # called from the next frame of the same location


@dataclass(frozen=True)
class Label:
    key: str
    str: Optional[str]  # a string label, else None and num/unit hold a numeric one
    num: int = 0
    unit: str = ""


@dataclass(frozen=True)
class Sample:
    values: Tuple[int, ...]
    frames: Tuple[Frame, ...]  # leaf first, every location expanded into its lines
    labels: Tuple[Label, ...]
    location_ids: Tuple[int, ...] = field(repr=False, default=())

    @property
    def label_dict(self):
        """{key: str or num} (the last one wins if a key repeats)."""
        return {l.key: (l.str if l.str is not None else l.num) for l in self.labels}


_TABLES = {
    "strings": _lib.TABLE_STRING,
    "sample_types": _lib.TABLE_SAMPLE_TYPE,
    "samples": _lib.TABLE_SAMPLE,
    "mappings": _lib.TABLE_MAPPING,
    "locations": _lib.TABLE_LOCATION,
    "functions": _lib.TABLE_FUNCTION,
}


class Profile(_Closing):
    """A decoded profile (a pprof_profile *). Free it with close() or a with-block, or let
    the garbage collector do it."""

    def __init__(self, handle, name=None):
        self._p = ctypes.c_void_p(handle) if not isinstance(handle, ctypes.c_void_p) else handle
        self.name = name
        self._strings = {}

    # -- lifetime
    def close(self):
        if self._p:
            lib.pprof_profile_free(self._p)
            self._p = ctypes.c_void_p()

    def _handle(self):
        if not self._p:
            raise ValueError("the profile is closed")
        return self._p

    # -- model
    def string(self, index: int) -> str:
        """The string at a string-table index ("" for 0); raises IndexError out of range."""
        try:
            index = c_integer(index, ctypes.c_int64, "string index")
        except OverflowError as e:  # past int64 is past the table too
            raise IndexError(f"string index {index} is out of range") from e
        s = self._strings.get(index)
        if s is None:
            out = _lib.String()
            if not lib.pprof_profile_string(self._handle(), index, ctypes.byref(out)):
                raise IndexError(f"string index {index} is out of range")
            s = ctypes.string_at(out.data, out.len).decode("utf-8", "replace") if out.len else ""
            self._strings[index] = s
        return s

    def _str(self, index):
        try:
            return self.string(index)
        except IndexError:
            return f"<bad string {index}>"

    @property
    def counts(self):
        """Entries in each table: strings, sample_types, samples, mappings, locations, functions."""
        h = self._handle()
        return {k: lib.pprof_profile_count(h, t) for k, t in _TABLES.items()}

    def __len__(self):
        return lib.pprof_profile_count(self._handle(), _lib.TABLE_SAMPLE)

    @property
    def source_format(self) -> str:
        """The container it was read from: 'gzip', 'zstd' or 'none'."""
        return FORMAT_NAMES.get(lib.pprof_profile_source_format(self._handle()), "none")

    @property
    def header(self) -> Header:
        h = lib.pprof_profile_header(self._handle())
        s = self._str
        return Header(
            ValueType(s(h.period_type.type), s(h.period_type.unit)),
            h.period,
            h.time_nanos,
            h.duration_nanos,
            s(h.drop_frames),
            s(h.keep_frames),
            s(h.default_sample_type),
            s(h.doc_url),
            tuple(s(h.comment[i]) for i in range(h.n_comment)),
        )

    @property
    def sample_types(self) -> List[ValueType]:
        h = self._handle()
        n = lib.pprof_profile_count(h, _lib.TABLE_SAMPLE_TYPE)
        out = []
        for i in range(n):
            vt = lib.pprof_profile_sample_type(h, i)
            out.append(ValueType(self._str(vt.type), self._str(vt.unit)))
        return out

    @property
    def mappings(self) -> List[Mapping]:
        h = self._handle()
        return [self._mapping(lib.pprof_profile_mapping(h, i)) for i in range(lib.pprof_profile_count(h, _lib.TABLE_MAPPING))]

    def _mapping(self, m):
        return Mapping(m.id, m.memory_start, m.memory_limit, m.file_offset, self._str(m.filename), self._str(m.build_id))

    def _frames_of(self, loc_id, cache):
        frames = cache.get(loc_id)
        if frames is not None:
            return frames
        h = self._handle()
        idx = ctypes.c_size_t()
        if not lib.pprof_profile_find_location(h, loc_id, ctypes.byref(idx)):
            frames = (Frame("<unknown location>", "", "", 0, 0, 0, 0, None, False),)
            cache[loc_id] = frames
            return frames
        loc = lib.pprof_profile_location(h, idx.value)
        mapping = None
        if loc.mapping_id and lib.pprof_profile_find_mapping(h, loc.mapping_id, ctypes.byref(idx)):
            mapping = self._mapping(lib.pprof_profile_mapping(h, idx.value))
        out = []
        for j in range(loc.n_line):
            ln = loc.line[j]
            name = sysname = filename = ""
            start = 0
            if lib.pprof_profile_find_function(h, ln.function_id, ctypes.byref(idx)):
                fn = lib.pprof_profile_function(h, idx.value)
                name, sysname, filename, start = self._str(fn.name), self._str(fn.system_name), self._str(fn.filename), fn.start_line
            out.append(Frame(name, sysname, filename, ln.line, ln.column, start, loc.address, mapping, j + 1 < loc.n_line))
        if not out:  # an address-only location
            out.append(Frame("", "", "", 0, 0, 0, loc.address, mapping, False))
        frames = tuple(out)
        cache[loc_id] = frames
        return frames

    def _label(self, l):
        key = self._str(l.key)
        if l.str:
            return Label(key, self._str(l.str))
        return Label(key, None, l.num, self._str(l.num_unit))

    def samples(self) -> Iterator[Sample]:
        """Every sample with its values, its stack resolved into frames (leaf first) and its
        labels. Locations are resolved once each. Closing the profile ends the iteration
        with ValueError at the next step."""
        cache = {}
        i = 0
        # the handle is looked up again at every step: the profile may have been closed (its
        # samples freed) while the caller held the iterator
        while i < lib.pprof_profile_count(self._handle(), _lib.TABLE_SAMPLE):
            s = lib.pprof_profile_sample(self._handle(), i)
            i += 1
            ids = tuple(s.location_id[j] for j in range(s.n_location_id))
            frames = []
            for lid in ids:
                frames.extend(self._frames_of(lid, cache))
            yield Sample(
                tuple(s.value[j] for j in range(s.n_value)),
                tuple(frames),
                tuple(self._label(s.label[j]) for j in range(s.n_label)),
                ids,
            )

    __iter__ = samples

    # -- output
    def to_bytes(self, compress="gzip", level=0) -> bytes:
        """Encodes deterministically (same profile, same bytes)."""
        w = write_options(compress, level)
        buf = _lib.Buffer()
        err = _lib.Error()
        st = lib.pprof_profile_write_memory(self._handle(), ctypes.byref(w), ctypes.byref(buf), ctypes.byref(err))
        if st != _lib.OK:
            lib.pprof_buffer_free(ctypes.byref(buf))
            raise PprofError.from_c(err, self.name)
        return take_buffer(buf)

    def write(self, path, compress="gzip", level=0) -> None:
        """Writes to a path atomically (a temporary file beside it, then a rename)."""
        w = write_options(compress, level)
        err = _lib.Error()
        check(lib.pprof_profile_write_file(self._handle(), ctypes.byref(w), fspath_bytes(path), ctypes.byref(err)), err, path)

    def dump(self, json=False, as_is=False) -> str:
        """The listing pprof-dump prints: text as `go tool pprof -raw` prints it (after Go's
        merge of the one profile), with as_is the text of the profile as stored, or with json
        every field of the profile as stored."""
        buf = _lib.Buffer()
        err = _lib.Error()
        fmt = 1 if json else 0 if as_is else 2
        st = lib.pprof_profile_print(self._handle(), fmt, ctypes.byref(buf), ctypes.byref(err))
        if st != _lib.OK:
            lib.pprof_buffer_free(ctypes.byref(buf))
            raise PprofError.from_c(err, self.name)
        return take_buffer(buf).decode("utf-8", "replace")

    def __eq__(self, other):
        """Semantic equality (pprof_profile_equal): strings compared by content."""
        if not isinstance(other, Profile):
            return NotImplemented
        return bool(lib.pprof_profile_equal(self._handle(), other._handle()))

    __hash__ = None

    def __repr__(self):
        if not self._p:
            return "<pprof.Profile closed>"
        c = self.counts
        return f"<pprof.Profile {self.name or ''} samples={c['samples']} locations={c['locations']} functions={c['functions']}>"


def read(source: Union[str, os.PathLike, bytes, bytearray, memoryview], **limits) -> Profile:
    """Reads a profile (raw, gzip or zstd, detected from its bytes) from a path ('-' is
    standard input) or from bytes. Keyword arguments override the read limits of
    pprof_read_options (max_samples=..., max_decompressed_bytes=..., relax=bits). Raises
    PprofError, also for a profile that decodes but that Go's pprof refuses on reading
    (code_name "PPROF_E_INVALID", the first finding's path and rule in the message): its
    samples would resolve to wrong frames; relax= bits do not change that (they are for
    readers that only report). pprof.check() reports such profiles instead."""
    o = read_options(limits)
    if readers_first(source):
        o.readers = _lib.formats_readers()
    p, e = _read(source, o)
    if e is not None and not o.readers and other_format_possible(e.code):
        o.readers = _lib.formats_readers(required=False)
        if o.readers:
            p, e = _read(source, o)
    if e is not None:
        raise e
    return p


def _read(source, o):
    """(Profile, None) or (None, PprofError): one read with the options o."""
    out = ctypes.c_void_p()
    err = _lib.Error()
    if isinstance(source, (bytes, bytearray, memoryview)):
        name = "<bytes>"
        keep, ptr, n = as_bytes(source)
        st = lib.pprof_profile_read_memory(ptr, n, ctypes.byref(o), ctypes.byref(out), ctypes.byref(err))
        del keep
    else:
        path = fspath_bytes(source)
        name = os.fsdecode(os.fspath(source))
        st = lib.pprof_profile_read_file(path, ctypes.byref(o), ctypes.byref(out), ctypes.byref(err))
    if st != _lib.OK:
        return None, PprofError.from_c(err, name)
    p = Profile(out, name)
    try:
        refuse_invalid(p._handle(), name)
    except PprofError as e:
        p.close()
        return None, e
    except BaseException:
        p.close()
        raise
    return p, None

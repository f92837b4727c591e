"""Context parallelism: one prefill's tokens split across processes.

Each rank holds a contiguous slice of the step's tokens (rank 0 the first
ones, then rank 1's, and so on; slices may be uneven or empty) and calls
``gdn_extend_chunkwise(..., cp_group=group)`` with its own q / k / v / a /
b, the step's whole ``cu_seqlens`` and ``cache_indices`` (the same on every
rank) and its own state pool. A sequence's initial state is read from the
pool of the rank holding its first token, and its final state is written
to the pool of the rank holding its last token; no other pool row of any
rank is written. Each rank gets the output of its own tokens.

How. The state update is linear in the state: a run of tokens maps the
state it starts from, row by row, as ``h_out = h_in @ M + b`` (M [K, K]
per value head, b the run's final state from h_in = 0). A rank whose last
sequence goes on past its slice computes that map for its part of the
sequence by running it on state rows ``[initial state or 0; I_K]`` and
values ``[v; 0]``: one kernel call on the host, or two (the V rows, then
the K rows with zero values) on the GPU and where V + K exceeds the
kernels' 512 rows. The ranks all-gather the maps; each one composes the state its
first sequence enters the slice with from the ranks before it, then runs
its slice once with that state. Before anything is written, every rank
validates its call and the ranks agree: a call refused on one rank is
refused on all of them (the others name the rank), with no pool written.

The exchange goes through a small communicator interface
(``Communicator``): ``cp_group`` may be an ``mpi4py`` communicator, a
``torch.distributed`` process group (gloo or NCCL) or any object with the
interface's ``rank``, ``size``, ``allgather_object`` and
``allgather_array``. The tables are read on the host (a host sync for
device tensors).
"""

import hashlib

import numpy as np

from . import _capi, _kernel
from ._capi import GDNTypeError, GDNValueError

# The kernels' largest V (state rows per value head).
MAX_STATE_ROWS = 512


class Communicator:
    """What context parallelism needs from a process group: this
    process's `rank` among `size`, and two all-gathers returning one entry
    per rank in rank order."""

    rank = 0
    size = 1

    def allgather_object(self, obj):
        """A small picklable object from every rank."""
        raise NotImplementedError

    def allgather_array(self, array):
        """An array of the same shape and dtype from every rank (numpy
        arrays or torch tensors, returned as the kind given)."""
        raise NotImplementedError


class MPICommunicator(Communicator):
    """Over an mpi4py communicator (``MPI.COMM_WORLD`` or a split)."""

    def __init__(self, comm):
        self.comm = comm
        self.rank = comm.Get_rank()
        self.size = comm.Get_size()

    def allgather_object(self, obj):
        return self.comm.allgather(obj)

    def allgather_array(self, array):
        host, back = _to_host(array)
        out = np.empty((self.size,) + host.shape, host.dtype)
        self.comm.Allgather(np.ascontiguousarray(host), out)
        return [back(out[r]) for r in range(self.size)]


class TorchCommunicator(Communicator):
    """Over a torch.distributed process group (None: the default group)."""

    def __init__(self, group=None):
        import torch.distributed as dist
        self.dist = dist
        self.group = group
        self.rank = dist.get_rank(group)
        self.size = dist.get_world_size(group)

    def allgather_object(self, obj):
        out = [None] * self.size
        self.dist.all_gather_object(out, obj, group=self.group)
        return out

    def allgather_array(self, array):
        import torch
        numpy_in = isinstance(array, np.ndarray)
        t = torch.from_numpy(np.ascontiguousarray(array)) if numpy_in \
            else array.contiguous()
        device = t.device
        if self.dist.get_backend(self.group) == "gloo":
            t = t.cpu()               # gloo's own ground: host memory
        out = [torch.empty_like(t) for _ in range(self.size)]
        self.dist.all_gather(out, t, group=self.group)
        return [o.numpy() for o in out] if numpy_in \
            else [o.to(device) for o in out]


def communicator(group):
    """`group` as a Communicator: passed through, or wrapped from mpi4py or
    torch.distributed; anything else is refused by name."""
    if isinstance(group, Communicator):
        return group
    module = type(group).__module__.split(".")[0]
    if module == "mpi4py":
        return MPICommunicator(group)
    if module == "torch":
        return TorchCommunicator(group)
    raise GDNTypeError(
        "cp_group is %s; expected an mpi4py communicator, a torch.distributed "
        "process group or a gdn.cp.Communicator" % type(group).__name__)


def _to_host(array):
    """(numpy array, function giving back the caller's kind)."""
    if isinstance(array, np.ndarray):
        return array, lambda a: a
    import torch
    device = array.device
    return array.detach().cpu().numpy(), \
        lambda a: torch.from_numpy(np.array(a)).to(device)


# -- array operations on numpy arrays, gdn.bfloat16_view and torch tensors --

def _is_torch(t):
    return type(t).__module__.split(".")[0] == "torch"


def _on_device(t):
    return _is_torch(t) and t.device.type != "cpu"


def _host_ints(t):
    if _is_torch(t):
        return t.detach().cpu().numpy().astype(np.int64)
    return np.asarray(t).astype(np.int64)


def _zeros_f32(like, shape):
    if _is_torch(like):
        import torch
        return torch.zeros(shape, dtype=torch.float32, device=like.device)
    return np.zeros(shape, np.float32)


def _identity_rows(like, HV, K):
    """[HV, K, K] float32: the identity per value head."""
    if _is_torch(like):
        import torch
        eye = torch.eye(K, dtype=torch.float32, device=like.device)
        return eye.expand(HV, K, K).contiguous()
    return np.repeat(np.eye(K, dtype=np.float32)[None], HV, axis=0)


def _zero_values(v, K):
    """K zero values per token and value head in v's dtype: [T, HV, K]."""
    shape = tuple(v.shape[:2]) + (K,)
    if _is_torch(v):
        return v.new_zeros(shape)
    if isinstance(v, _kernel.bfloat16_view):      # zero bits are 0.0
        return _kernel.bfloat16_view(np.zeros(shape, np.uint16))
    return np.zeros(shape, v.dtype)


def _concat_values(v, zeros):
    """[v, zeros] along the value axis: [T, HV, V + K]."""
    if _is_torch(v):
        import torch
        return torch.cat([v, zeros], dim=2)
    if isinstance(v, _kernel.bfloat16_view):
        return _kernel.bfloat16_view(np.concatenate([v.array, zeros.array], axis=2))
    return np.concatenate([v, zeros], axis=2)


def _tokens(t, lo, hi):
    if isinstance(t, _kernel.bfloat16_view):
        return _kernel.bfloat16_view(t.array[lo:hi])
    return t[lo:hi]


def _rows(pool, rows):
    """pool[rows] as float32 (a copy)."""
    if _is_torch(pool):
        import torch
        index = torch.tensor(rows, dtype=torch.int64, device=pool.device)
        return pool[index].float()
    return np.asarray(pool)[np.array(rows, np.int64)].astype(np.float32)


def _put_rows(pool, rows, values):
    """pool[rows] = values, in the pool's dtype."""
    if _is_torch(pool):
        import torch
        index = torch.tensor(rows, dtype=torch.int64, device=pool.device)
        pool[index] = values.to(pool.dtype)
    else:
        pool[np.array(rows, np.int64)] = values.astype(pool.dtype)


def _empty_like_rows(v, T):
    """An output for T tokens of v's layout (T = 0 on a rank without any)."""
    if _is_torch(v):
        return v.new_empty((T,) + tuple(v.shape[1:]))
    if isinstance(v, _kernel.bfloat16_view):
        return _kernel.bfloat16_view.empty((T,) + tuple(v.shape[1:]))
    return np.empty((T,) + tuple(v.shape[1:]), v.dtype)


# -- the call ---------------------------------------------------------------

class _Piece:
    """A sequence's tokens on this rank: global sequence `seq`, local
    tokens [lo, hi), whether the sequence starts / ends on this rank."""

    __slots__ = ("seq", "lo", "hi", "starts", "ends")

    def __init__(self, seq, lo, hi, starts, ends):
        self.seq, self.lo, self.hi = seq, lo, hi
        self.starts, self.ends = starts, ends


def _pieces(cu, offset, count):
    """The pieces of the sequences of cu_seqlens `cu` that meet tokens
    [offset, offset + count), in order."""
    pieces = []
    end = offset + count
    for s in range(len(cu) - 1):
        lo, hi = int(cu[s]), int(cu[s + 1])
        a, b = max(lo, offset), min(hi, end)
        if a < b:
            pieces.append(_Piece(s, a - offset, b - offset, a == lo, b == hi))
    return pieces


def _agree(comm, function, local_error, payload):
    """All-gathers (error message or None, payload); raises on every rank
    if any rank failed (a rank's own error as it was), else returns the
    payloads in rank order."""
    gathered = comm.allgather_object(
        (None if local_error is None else
         (type(local_error).__name__, str(local_error)), payload))
    if local_error is not None:
        raise local_error
    for rank, (error, _) in enumerate(gathered):
        if error is not None:
            kind = GDNTypeError if error[0] == "GDNTypeError" else GDNValueError
            raise kind("%s: cp_group: rank %d refused its call: %s"
                       % (function, rank, error[1]))
    return [p for _, p in gathered]


def _validate(kernel, function, tensors, chunk_size):
    """Refuses what the pool call would refuse, running nothing (gates and
    tables converted as a device call converts them)."""
    present = {n: _kernel._as_device_operand(n, t) for n, t in tensors.items()}
    flags = _kernel._flags((_capi.INTERFACE_POOL, chunk_size, 256, None,
                            _capi.GATE_LINEAR, 0, 0, 0, None))
    kernel._run(function, _capi.INTERFACE_POOL, present, flags, 0,
                validate_only=True)


def extend_chunkwise(kernel, group, q, k, v, a, b, A_log, dt_bias,
                     state_pool, cache_indices, cu_seqlens, chunk_size,
                     output):
    """gdn_extend_chunkwise over `group` (see the module's text)."""
    fn = "gdn_extend_chunkwise"
    comm = communicator(group)

    # 1. Each rank's token count and tables; the ranks must agree on them.
    error, payload = None, None
    try:
        for name, t in (("q", q), ("k", k), ("v", v), ("a", a), ("b", b),
                        ("A_log", A_log), ("dt_bias", dt_bias),
                        ("state_pool", state_pool),
                        ("cache_indices", cache_indices),
                        ("cu_seqlens", cu_seqlens)):
            if t is None:
                raise GDNTypeError("%s: %s is None; expected a tensor"
                                   % (fn, name))
        if len(v.shape) != 3:
            raise GDNValueError("%s: v has shape %s; expected [T, HV, V]"
                                % (fn, list(v.shape)))
        chunk_size = _kernel._int_argument(fn, "chunk_size", chunk_size,
                                           "32, 64 or 128")
        cu, rows = _host_ints(cu_seqlens), _host_ints(cache_indices)
        digest = hashlib.sha1(cu.tobytes() + b"|" + rows.tobytes()).hexdigest()
        payload = (int(v.shape[0]), digest, tuple(int(d) for d in v.shape[1:]),
                   int(q.shape[-1]) if len(q.shape) == 3 else -1)
    except Exception as e:            # told to the other ranks, then raised
        error = e
    counts = _agree(comm, fn, error, payload)
    if any(c[1] != counts[0][1] for c in counts):
        differ = [r for r, c in enumerate(counts) if c[1] != counts[0][1]]
        raise GDNValueError(
            "%s: cp_group: cu_seqlens and cache_indices must be the same on "
            "every rank; rank %d's differ from rank 0's" % (fn, differ[0]))
    if any(c[2:] != counts[0][2:] for c in counts):
        raise GDNValueError(
            "%s: cp_group: every rank must pass v [T, HV, V] and q [T, H, K] "
            "of the same HV, V and K; ranks pass %s"
            % (fn, ", ".join("%d: %s, K %d" % (r, list(c[2]), c[3])
                             for r, c in enumerate(counts))))
    total = sum(c[0] for c in counts)
    if len(cu) == 0 or cu[0] != 0 or (np.diff(cu) < 0).any() \
            or len(cu) != len(rows) + 1:
        raise GDNValueError(
            "%s: cp_group: cu_seqlens must start at 0, not decrease and have "
            "len(cache_indices) + 1 = %d entries; got %s"
            % (fn, len(rows) + 1, list(cu[:8])))
    if cu[-1] != total:
        raise GDNValueError(
            "%s: cp_group: the ranks hold %d tokens in all (%s), but "
            "cu_seqlens ends at %d" % (fn, total, ", ".join(
                "rank %d: %d" % (r, c[0]) for r, c in enumerate(counts)),
                int(cu[-1])))
    offset = sum(c[0] for c in counts[:comm.rank])
    T = counts[comm.rank][0]
    HV, V = counts[0][2]
    K = counts[0][3]
    pieces = _pieces(cu, offset, T)
    out = output if output is not None else _empty_like_rows(v, T)

    # 2. Validate this rank's call; the map of a sequence going on past
    # this rank; the ranks agree before anything is written.
    error, carried = None, None
    local = None
    try:
        if pieces:
            # The slice's own pool: a row per piece, the pool rows of the
            # sequences that start here (the others get their state below).
            local = _zeros_f32(v, (len(pieces), HV, V, K))
            starting = [i for i, p in enumerate(pieces) if p.starts]
            if starting:
                local[starting] = _rows(state_pool,
                                        [int(rows[pieces[i].seq]) for i in starting])
            local_cu = np.array([0] + [p.hi for p in pieces], np.int64)
            local_rows = np.arange(len(pieces), dtype=np.int64)
            if _is_torch(v):
                import torch
                local_cu = torch.from_numpy(local_cu).to(v.device)
                local_rows = torch.from_numpy(local_rows).to(v.device)
            local_cu_rows = (local_cu, local_rows)
            _validate(kernel, fn, {
                "q": q, "k": k, "v": v, "a": a, "b": b, "A_log": A_log,
                "dt_bias": dt_bias, "state_pool": local,
                "cache_indices": local_rows, "cu_seqlens": local_cu,
                "o": out}, chunk_size)
            last = pieces[-1]
            if not last.ends:
                carried = (last.seq, last.starts, _piece_map(
                    kernel, v, (q, k, v, a, b), A_log, dt_bias, last,
                    local[len(pieces) - 1], HV, V, K, chunk_size))
    except Exception as e:
        error = e
    carries = _agree(comm, fn, error, None if carried is None
                     else (carried[0], carried[1]))
    maps = _gather_maps(comm, carries, carried, v, HV, V, K)

    # 3. The state the first piece enters with, then the slice's run.
    if not pieces:
        return out
    first = pieces[0]
    if not first.starts:
        h = None
        for rank in range(comm.rank):
            if carries[rank] is None or carries[rank][0] != first.seq:
                continue
            M, b_ = maps[rank]
            h = b_ if carries[rank][1] else h @ M + b_
        local[0] = h
    local_cu, local_rows = local_cu_rows
    kernel.gdn_extend_chunkwise(q, k, v, a, b, A_log, dt_bias, local,
                                local_rows, local_cu, chunk_size, output=out)
    ending = [i for i, p in enumerate(pieces) if p.ends]
    if ending:
        _put_rows(state_pool, [int(rows[pieces[i].seq]) for i in ending],
                  local[ending])
    return out


def _piece_map(kernel, like, tensors, A_log, dt_bias, piece, initial, HV, V,
               K, chunk_size):
    """(M [HV, K, K], b [HV, V, K]) of `piece`'s tokens: h_out = h_in @ M +
    b, b from `initial` (its pool state where the sequence starts on this
    rank, else 0). One call on state rows [initial; I] and values [v; 0]."""
    q, k, v, a, b = (_tokens(t, piece.lo, piece.hi) for t in tensors)
    n = piece.hi - piece.lo
    cu = np.array([0, n], np.int64)
    row = np.zeros(1, np.int64)
    if _is_torch(like):
        import torch
        cu, row = torch.from_numpy(cu).to(like.device), torch.from_numpy(row).to(like.device)
    identity = _identity_rows(like, HV, K)

    def run(values, state):
        pool = state.reshape((1,) + tuple(state.shape))
        kernel.gdn_extend_chunkwise(q, k, values, a, b, A_log, dt_bias, pool,
                                    row, cu, chunk_size)
        return pool[0]

    zeros = _zero_values(v, K)
    # One call at V + K state rows where that is a shape the kernels take
    # without new code: on the host any V + K up to 512; on the GPU two
    # calls at V and K rows, the shapes whose artifacts the caller's own
    # call (and a square head's) already uses, for the same work.
    if V + K <= MAX_STATE_ROWS and not _on_device(like):
        both = _zeros_f32(like, (HV, V + K, K))
        both[:, :V] = initial
        both[:, V:] = identity
        final = run(_concat_values(v, zeros), both)
        return final[:, V:], final[:, :V]
    return run(zeros, identity), run(v, _copy(initial))


def _copy(t):
    return t.clone() if _is_torch(t) else t.copy()


def _gather_maps(comm, carries, carried, like, HV, V, K):
    """Every rank's (M, b), None where a rank carries nothing. One
    all-gather of [HV, K + V, K] float32 per rank, when any rank carries."""
    if all(c is None for c in carries):
        return [None] * comm.size
    block = _zeros_f32(like, (HV, K + V, K))
    if carried is not None:
        M, b_ = carried[2]
        block[:, :K] = M
        block[:, K:] = b_
    gathered = comm.allgather_array(block)
    return [None if c is None else (g[:, :K], g[:, K:])
            for c, g in zip(carries, gathered)]

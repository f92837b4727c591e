"""Context parallelism: one prefill's tokens split across processes.

Each rank holds a contiguous slice of the step's tokens (rank 0 the first
ones, then rank 1's, and so on; slices may be uneven or empty) and calls
``gdn_extend_chunkwise(..., cp_group=group)`` or
``chunk_gated_delta_rule_paged(..., cp_group=group)`` with its own tokens'
tensors, the step's whole tables (the same on every rank) and its own
state pool. A sequence's initial state is read from the pool of the rank
holding its first new token, its final state is written to the pool of the
rank holding its last token, and (paged) each page boundary's state to the
pool of the rank holding that token; no other row or page of any rank's
pool is written. Each rank gets the output of its own tokens.

How. The state update is linear in the state: a run of tokens maps the
state it starts from, row by row, as ``h_out = h_in @ M + b`` (M [K, K]
per value head, b the run's final state from h_in = 0). A rank whose last
sequence goes on past its slice computes that map for its part of the
sequence by running it on state rows ``[initial state or 0; I_K]`` and
values ``[v; 0]``: one kernel call on the host, or two (the V rows, then
the K rows with zero values) on the GPU and where V + K exceeds the
kernels' 512 rows. The ranks all-gather the maps; each one composes the
state its first sequence enters the slice with from the ranks before it,
then runs its slice once with that state. Before anything is written, every rank
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


def _exchange(comm, fn, required, q, v, tables, sequences):
    """Phase 1 of a call: every rank's token count, head shapes and a digest
    of its tables, all-gathered. Refuses (on every rank) a missing tensor,
    tables that differ between ranks, head shapes that differ, and token
    counts that do not add up to cu_seqlens[-1]. `tables` maps names to
    host int arrays, cu_seqlens first; `sequences` is how many sequences the
    other tables say there are. Returns (cu, offset, T, HV, V, K)."""
    error, payload = None, None
    cu = None
    try:
        for name, t in required.items():
            if t is None:
                raise GDNTypeError("%s: %s is None; expected a tensor"
                                   % (fn, name))
        if len(v.shape) != 3:
            raise GDNValueError("%s: v has shape %s; expected [T, HV, V]"
                                % (fn, list(v.shape)))
        host = {n: _host_ints(t) for n, t in tables.items()}
        cu = host["cu_seqlens"]
        digest = hashlib.sha1(b"|".join(a.tobytes() for a in host.values())
                              ).hexdigest()
        payload = (int(v.shape[0]), digest, tuple(int(d) for d in v.shape[1:]),
                   int(q.shape[-1]) if len(q.shape) == 3 else -1)
    except Exception as e:            # told to the other ranks, then raised
        error = e
    counts = _agree(comm, fn, error, payload)
    names = " and ".join(tables)
    if any(c[1] != counts[0][1] for c in counts):
        differ = [r for r, c in enumerate(counts) if c[1] != counts[0][1]]
        raise GDNValueError(
            "%s: cp_group: %s must be the same on every rank; rank %d's "
            "differ from rank 0's" % (fn, names, differ[0]))
    if any(c[2:] != counts[0][2:] for c in counts):
        raise GDNValueError(
            "%s: cp_group: every rank must pass v [T, HV, V] and q [T, H, K] "
            "of the same HV, V and K; ranks pass %s"
            % (fn, ", ".join("%d: %s, K %d" % (r, list(c[2]), c[3])
                             for r, c in enumerate(counts))))
    total = sum(c[0] for c in counts)
    if len(cu) == 0 or cu[0] != 0 or (np.diff(cu) < 0).any() \
            or len(cu) != sequences(host) + 1:
        raise GDNValueError(
            "%s: cp_group: cu_seqlens must start at 0, not decrease and have "
            "one entry more than there are sequences (%d); got %s"
            % (fn, sequences(host), list(cu[:8])))
    if cu[-1] != total:
        raise GDNValueError(
            "%s: cp_group: the ranks hold %d tokens in all (%s), but "
            "cu_seqlens ends at %d" % (fn, total, ", ".join(
                "rank %d: %d" % (r, c[0]) for r, c in enumerate(counts)),
                int(cu[-1])))
    offset = sum(c[0] for c in counts[:comm.rank])
    HV, V = counts[0][2]
    return host, offset, counts[comm.rank][0], HV, V, counts[0][3]


def _device_tables(like, *arrays):
    """int64 host arrays as tables for `like`'s kind (torch on its device)."""
    if not _is_torch(like):
        return tuple(np.asarray(a, np.int64) for a in arrays)
    import torch
    return tuple(torch.from_numpy(np.asarray(a, np.int64)).to(like.device)
                 for a in arrays)


def _affine_map(run, v, initial, HV, V, K):
    """(M [HV, K, K], b [HV, V, K]) of a run of tokens, h_out = h_in @ M + b,
    with b from `initial`. `run(values, state)` runs the tokens with these
    values from `state` [HV, rows, K] (float32) and returns the final state.
    On the host one run on rows [initial; I] and values [v; 0]; on the GPU,
    and where V + K exceeds the kernels' rows, two runs at V and K rows, the
    shapes of the caller's own call and of a square head, for the same
    work (so no kernel of a new shape is compiled)."""
    identity = _identity_rows(v, HV, K)
    zeros = _zero_values(v, K)
    if V + K <= MAX_STATE_ROWS and not _on_device(v):
        both = _zeros_f32(v, (HV, V + K, K))
        both[:, :V] = initial
        both[:, V:] = identity
        final = run(_concat_values(v, zeros), both)
        return final[:, V:], final[:, :V]
    return run(zeros, identity), run(v, _copy(initial))


def _carry_and_compose(comm, fn, pieces, HV, V, K, like, validate, piece_map):
    """Phases 2 and 3 up to the slice's run: validates this rank's call,
    computes the map of a last piece that goes on past the rank, has the
    ranks agree (a refusal anywhere is raised everywhere), all-gathers the
    maps, and returns the state the first piece enters with when it does
    not start here (else None)."""
    error, carried = None, None
    try:
        if pieces:
            validate()
            last = pieces[-1]
            if not last.ends:
                carried = (last.seq, last.starts, piece_map(last))
    except Exception as e:
        error = e
    carries = _agree(comm, fn, error, None if carried is None
                     else (carried[0], carried[1]))
    maps = _gather_maps(comm, carries, carried, like, HV, V, K)
    if not pieces or pieces[0].starts:
        return None
    h = None
    for rank in range(comm.rank):
        if carries[rank] is None or carries[rank][0] != pieces[0].seq:
            continue
        M, b_ = maps[rank]
        h = b_ if carries[rank][1] else h @ M + b_
    return h


# -- the pool call ------------------------------------------------------------

def extend_chunkwise(kernel, group, q, k, v, a, b, A_log, dt_bias,
                     state_pool, cache_indices, cu_seqlens, chunk_size,
                     output):
    """gdn_extend_chunkwise over `group` (see the module's text)."""
    fn = "gdn_extend_chunkwise"
    comm = communicator(group)
    chunk_size = _kernel._int_argument(fn, "chunk_size", chunk_size,
                                       "32, 64 or 128")
    host, offset, T, HV, V, K = _exchange(
        comm, fn, {"q": q, "k": k, "v": v, "a": a, "b": b, "A_log": A_log,
                   "dt_bias": dt_bias, "state_pool": state_pool,
                   "cache_indices": cache_indices, "cu_seqlens": cu_seqlens},
        q, v, {"cu_seqlens": cu_seqlens, "cache_indices": cache_indices},
        lambda h: len(h["cache_indices"]))
    rows = host["cache_indices"]
    pieces = _pieces(host["cu_seqlens"], offset, T)
    out = output if output is not None else _empty_like_rows(v, T)
    if not pieces:
        _carry_and_compose(comm, fn, pieces, HV, V, K, v, None, None)
        return out

    # The slice's own pool: a row per piece; the rows of the sequences
    # that start here come from the caller's pool, the others' below.
    local = _zeros_f32(v, (len(pieces), HV, V, K))
    starting = [i for i, p in enumerate(pieces) if p.starts]
    if starting:
        local[starting] = _rows(state_pool,
                                [int(rows[pieces[i].seq]) for i in starting])
    local_cu, local_rows = _device_tables(
        v, [0] + [p.hi for p in pieces], range(len(pieces)))
    tokens = (q, k, v, a, b)

    def pool_call(q_, k_, v_, a_, b_, pool, rows_, cu_, validate_only=False):
        if validate_only:
            present = {n: _kernel._as_device_operand(n, t) for n, t in {
                "q": q_, "k": k_, "v": v_, "a": a_, "b": b_, "A_log": A_log,
                "dt_bias": dt_bias, "state_pool": pool, "cache_indices": rows_,
                "cu_seqlens": cu_, "o": out}.items()}
            flags = _kernel._flags((_capi.INTERFACE_POOL, chunk_size, 256,
                                    None, _capi.GATE_LINEAR, 0, 0, 0, None))
            kernel._run(fn, _capi.INTERFACE_POOL, present, flags, 0,
                        validate_only=True)
            return None
        return kernel.gdn_extend_chunkwise(
            q_, k_, v_, a_, b_, A_log, dt_bias, pool, rows_, cu_,
            chunk_size, output=out if v_ is v else None)

    def piece_map(piece):
        q_, k_, v_, a_, b_ = (_tokens(t, piece.lo, piece.hi) for t in tokens)
        cu_, row_ = _device_tables(v, [0, piece.hi - piece.lo], [0])

        def run(values, state):
            pool = state.reshape((1,) + tuple(state.shape))
            pool_call(q_, k_, values, a_, b_, pool, row_, cu_)
            return pool[0]
        initial = local[len(pieces) - 1]
        return _affine_map(run, v_, initial, HV, V, K)

    h = _carry_and_compose(
        comm, fn, pieces, HV, V, K, v,
        lambda: pool_call(*tokens, local, local_rows, local_cu,
                          validate_only=True),
        piece_map)
    if h is not None:
        local[0] = h
    pool_call(*tokens, local, local_rows, local_cu)
    ending = [i for i, p in enumerate(pieces) if p.ends]
    if ending:
        _put_rows(state_pool, [int(rows[pieces[i].seq]) for i in ending],
                  local[ending])
    return out


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


# -- the paged call -----------------------------------------------------------

def _round_up(n, m):
    return -(-n // m) * m


def paged_prefill(kernel, group, q, k, v, g, beta, scale, cu_seqlens,
                  state_pool, page_indices, page_indptr, page_size,
                  last_page_len, use_qk_l2norm_in_kernel, output, gate_domain,
                  use_gate_in_kernel, A_log, dt_bias, beta_is_logit):
    """chunk_gated_delta_rule_paged over `group`: each rank runs its
    pieces on its own pool in place, with local page tables that start at
    the page each piece enters from. The states at page boundaries inside
    a rank's tokens land in that rank's pool (SPEC.md's checkpoints), a
    sequence's final state in the pool of the rank holding its last token.
    A piece that does not start its sequence enters from the composed
    state, put for the call into the page holding its previous token and
    that page put back afterwards unless the rank must write it; so is a
    piece's last page when the rank must not write it."""
    fn = "chunk_gated_delta_rule_paged"
    comm = communicator(group)
    page_size = _kernel._int_argument(fn, "page_size", page_size,
                                      "a multiple of 64 in [64, 2^30]")
    required = {"q": q, "k": k, "v": v, "cu_seqlens": cu_seqlens,
                "state_pool": state_pool, "page_indices": page_indices,
                "page_indptr": page_indptr, "last_page_len": last_page_len}
    host, offset, T, HV, V, K = _exchange(
        comm, fn, required, q, v,
        {"cu_seqlens": cu_seqlens, "page_indices": page_indices,
         "page_indptr": page_indptr, "last_page_len": last_page_len},
        lambda h: len(h["last_page_len"]))
    cu, ids, indptr, last = (host[n] for n in (
        "cu_seqlens", "page_indices", "page_indptr", "last_page_len"))
    pieces = _pieces(cu, offset, T)
    out = output if output is not None else _empty_like_rows(v, T)
    options = dict(scale=scale, use_qk_l2norm_in_kernel=use_qk_l2norm_in_kernel,
                   gate_domain=gate_domain, use_gate_in_kernel=use_gate_in_kernel,
                   A_log=A_log, dt_bias=dt_bias, beta_is_logit=beta_is_logit)
    tokens = (q, k, v, g, beta)

    # Each piece as a local sequence: absolute positions [start, end) of
    # its sequence, entering from page `entry` (None: from zero state).
    local_ids, local_indptr, local_last, entries = [], [0], [], []
    writes, restores = set(), set()
    for p in pieces:
        n = int(cu[p.seq + 1] - cu[p.seq])
        pages = ids[indptr[p.seq]:indptr[p.seq + 1]]
        length = (len(pages) - 1) * page_size + int(last[p.seq])
        prefix = length - n
        start = prefix + p.lo - (int(cu[p.seq]) - offset)
        end = start + (p.hi - p.lo)
        first = (start - 1) // page_size if start > 0 else 0
        count = -(-end // page_size) - first
        local_ids.extend(int(x) for x in pages[first:first + count])
        local_indptr.append(len(local_ids))
        local_last.append(end - (first + count - 1) * page_size)
        # The pages the rank must write: boundaries inside its tokens, and
        # the sequence's last page where the sequence ends here.
        for x in range(first, first + count):
            if start <= (x + 1) * page_size - 1 < end:
                writes.add(int(pages[x]))
        if p.ends:
            writes.add(int(pages[first + count - 1]))
        entries.append(int(pages[first]) if start > 0 else None)
        if not p.starts:
            restores.add(int(pages[first]))
        restores.add(int(pages[first + count - 1]))
    restores -= writes
    local_cu = [0] + [p.hi for p in pieces]
    tables = _device_tables(v, local_cu, local_ids, local_indptr, local_last) \
        if pieces else None

    def paged_call(tokens_, pool, tables_, page_size_, o, validate_only=False):
        q_, k_, v_, g_, beta_ = tokens_
        cu_, ids_, indptr_, last_ = tables_
        if validate_only:
            flags = _kernel._flags((
                _capi.INTERFACE_PAGED, 0, page_size_,
                None if scale is None else _kernel._scale_argument(fn, scale),
                _capi.GATE_LOG if gate_domain == "log" else _capi.GATE_LINEAR,
                int(bool(use_gate_in_kernel)), int(bool(beta_is_logit)),
                int(bool(use_qk_l2norm_in_kernel)), None))
            present = {"q": q_, "k": k_, "v": v_}
            for name, t in (("g", g_), ("beta", beta_), ("A_log", A_log),
                            ("dt_bias", dt_bias)):
                if t is not None:
                    present[name] = t
            present.update(state_pool=pool, page_indices=ids_,
                           page_indptr=indptr_, last_page_len=last_,
                           cu_seqlens=cu_, o=o)
            present = {n: _kernel._as_device_operand(n, t)
                       for n, t in present.items()}
            kernel._run(fn, _capi.INTERFACE_PAGED, present, flags, 0,
                        validate_only=True)
            return None
        return kernel.chunk_gated_delta_rule_paged(
            q_, k_, v_, g_, beta_, cu_seqlens=cu_, state_pool=pool,
            page_indices=ids_, page_indptr=indptr_, page_size=page_size_,
            last_page_len=last_, output=o, **options)

    def entering_state(piece_index):
        page = entries[piece_index]
        if page is None or not pieces[piece_index].starts:
            return _zeros_f32(v, (HV, V, K))
        return _rows(state_pool, [page])[0]

    def piece_map(piece):
        # One page holding all: the entering state at position 127 (a
        # prefix of 128, aligned to every chunk size), the piece after it.
        tokens_ = tuple(None if t is None else _tokens(t, piece.lo, piece.hi)
                        for t in tokens)
        n = piece.hi - piece.lo
        size = _round_up(128 + n, 128)
        tables_ = _device_tables(v, [0, n], [0], [0, 1], [128 + n])

        def run(values, state):
            pool = state.reshape((1,) + tuple(state.shape))
            paged_call(tokens_[:2] + (values,) + tokens_[3:], pool, tables_,
                       size, None)
            return pool[0]
        return _affine_map(run, tokens_[2], entering_state(len(pieces) - 1),
                           HV, V, K)

    h = _carry_and_compose(
        comm, fn, pieces, HV, V, K, v,
        lambda: paged_call(tokens, state_pool, tables, page_size, out,
                           validate_only=True),
        piece_map)
    if not pieces:
        return out
    saved = sorted(restores)
    kept = _rows(state_pool, saved) if saved else None
    try:
        if h is not None:
            _put_rows(state_pool, [entries[0]], h.reshape((1,) + tuple(h.shape)))
        paged_call(tokens, state_pool, tables, page_size, out)
    finally:
        if saved:
            _put_rows(state_pool, saved, kept)
    return out

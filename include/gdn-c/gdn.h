/*===- gdn.h - the C ABI of the gdn runtime -------------------------------===*
 *
 * What language bindings (the Python package in python/) call: make a
 * context (where kernels come from, the schedule), then run one GDN prefill
 * call on named DLPack tensors. Tensors are borrowed, never copied out of
 * the caller's hands: `state_pool` is updated in place and `o` is written.
 *
 * Every function returns a gdn_status; on failure gdn_last_error() (per
 * thread) says what was refused, naming the tensor, its shape / dtype and
 * what was expected. A refused call leaves every tensor untouched.
 *
 * The header is plain C and depends on nothing; DLTensor is declared here
 * with DLPack's layout (dlpack.h v0.8 / v1.x, which agree on it).
 *
 *===----------------------------------------------------------------------===*/

#ifndef GDN_C_GDN_H
#define GDN_C_GDN_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define GDN_C_API_VERSION 2

/* The functions of the C ABI. */
#if defined(__GNUC__)
#define GDN_C_API __attribute__((visibility("default")))
#else
#define GDN_C_API
#endif

/* ---- DLPack's tensor (https://dmlc.github.io/dlpack) ---- */
#ifndef DLPACK_EXTERN_C
typedef enum {
  kDLCPU = 1,
  kDLCUDA = 2,
  kDLCUDAHost = 3,
  kDLCUDAManaged = 13,
} DLDeviceType;
typedef struct {
  int32_t device_type; /* a DLDeviceType */
  int32_t device_id;
} DLDevice;
typedef enum {
  kDLInt = 0,
  kDLUInt = 1,
  kDLFloat = 2,
  kDLBfloat = 4,
} DLDataTypeCode;
typedef struct {
  uint8_t code; /* a DLDataTypeCode */
  uint8_t bits;
  uint16_t lanes;
} DLDataType;
typedef struct {
  void *data;
  DLDevice device;
  int32_t ndim;
  DLDataType dtype;
  int64_t *shape;
  int64_t *strides; /* in elements; NULL means compact row-major */
  uint64_t byte_offset;
} DLTensor;
#endif

/* ---- status ---- */
typedef enum {
  GDN_OK = 0,
  GDN_ERROR_VALUE = 1,   /* a wrong shape, value or page table */
  GDN_ERROR_TYPE = 2,    /* a wrong dtype or device */
  GDN_ERROR_RUNTIME = 3, /* compiling or running failed */
} gdn_status;

/* The message of this thread's last failure ("" after a success). */
GDN_C_API const char *gdn_last_error(void);
/* GDN_C_API_VERSION of the library. */
GDN_C_API int32_t gdn_api_version(void);
/* Whether the library can compile kernels (built with MLIR): host tensors
 * need it, since they run on the CPU back end. */
GDN_C_API int32_t gdn_can_compile(void);

/* ---- contexts ---- */
typedef struct gdn_context gdn_context;

typedef struct {
  /* The kernel file (NULL: kernels/gdn_chunked.mlir of the build). */
  const char *kernel_path;
  /* A fusion schedule: a built-in name, a .sched file or inline text as
   * gdn-run's --schedule takes it (NULL or "": fused). */
  const char *schedule;
  /* Host threads for CPU calls (0: every core). */
  int32_t cpu_threads;
  /* Kernels for device tensors, compiled ahead of time (`gdn-run --emit
   * artifact`, `make artifacts`): an artifact, an auto set, or a root with
   * one per shape (k128_v128_bf16, ...). Must name one set built for the
   * context's schedule. NULL: where the library can compile (built with
   * MLIR), kernels are compiled on first use into the kernel cache;
   * elsewhere device calls fail with GDN_ERROR_RUNTIME. */
  const char *artifacts_dir;
  /* The kernel cache (NULL: $GDN_CACHE_DIR, else $XDG_CACHE_HOME/gdn, else
   * ~/.cache/gdn): one artifact per hash of the kernel file's text, the
   * schedule, the shape, the code generator's options and this library. */
  const char *cache_dir;
} gdn_context_options;

/* Fills `options` with the defaults. */
GDN_C_API void gdn_context_options_init(gdn_context_options *options);
GDN_C_API gdn_status gdn_context_create(const gdn_context_options *options,
                              gdn_context **context);
GDN_C_API void gdn_context_destroy(gdn_context *context);

/* Makes sure the kernel cache holds the artifact for K, V and `dtype`
 * ("bf16" or "f16") under the context's schedule (a concrete one, not
 * auto), compiling it if missing, and writes its directory to `path`
 * (`size` bytes, NUL-terminated). Needs a library built with MLIR. */
GDN_C_API gdn_status gdn_cached_artifact(gdn_context *context, int64_t K,
                                         int64_t V, const char *dtype,
                                         char *path, int64_t size);

/* ---- calls ---- */
typedef enum {
  GDN_INTERFACE_POOL = 0,  /* seed 000: cache_indices, raw gates */
  GDN_INTERFACE_PAGED = 1, /* seed 004: CSR page table */
} gdn_interface;

typedef enum {
  GDN_GATE_LINEAR = 0, /* g holds alpha = exp(log decay), in [0, 1] */
  GDN_GATE_LOG = 1,    /* g holds the log decay, <= 0 */
} gdn_gate_domain;

typedef struct {
  int64_t page_size;          /* paged: tokens per page (multiple of 64) */
  int64_t chunk_size;         /* tokens per chunk: 32, 64 or 128; 0 (the
                                 default): the schedule's chunk=, else 64.
                                 The GPU takes 64. */
  int32_t has_scale;          /* 0: scale = K^-0.5 */
  double scale;
  int32_t gate_domain;        /* paged without use_gate_in_kernel */
  int32_t use_gate_in_kernel; /* paged: g / beta are raw a / b */
  int32_t beta_is_logit;
  int32_t qk_l2norm;          /* paged (the pool interface always is) */
  /* Checked mode: refuse gates that are not finite or outside their
   * domain (linear alpha in [0, 1], log g <= 0), A_log above 88 (exp of
   * it overflows f32), host q / k / v that are not finite, and validate
   * the index tensors (pool rows, page table) of device calls too, which
   * copies them to the host and waits for the device (so not inside a
   * graph capture). Host calls validate index tensors always. */
  int32_t checked;
  /* Check the call as checked mode does and return without running (a
   * binding that stages the pool itself validates the caller's tables
   * first). Device pools may then be bf16 or have padded rows. */
  int32_t validate_only;
} gdn_call_flags;

GDN_C_API void gdn_call_flags_init(gdn_call_flags *flags);

/* Runs one call. `names[i]` names `tensors[i]` with the seeds' names (q, k,
 * v, a, b, A_log, dt_bias, g, beta, state_pool, cache_indices, cu_seqlens,
 * page_indices, page_indptr, last_page_len) plus `o`, the output [T, HV, V]
 * in the dtype of v.
 *
 * Host tensors (kDLCPU) run on the CPU back end, synchronously. Device
 * tensors (kDLCUDA, all on one device) run the artifacts' kernels on
 * `stream` (a CUstream / cudaStream_t; NULL: the legacy default stream),
 * asynchronously, with no copy or wait. Workspaces come from an arena per
 * stream; inside a graph capture, from the graph's own stream-ordered
 * allocation. The first call of a shape loads its kernels: make it before
 * capturing. The context must outlive graphs captured with it. The
 * caller's current CUDA context is restored on return. On the device,
 * gates must be float32, index tensors int64, the pool dense float32, and
 * every tensor contiguous. A call without tokens returns at once.
 *
 * Refused before anything runs (GDN_ERROR_VALUE / GDN_ERROR_TYPE, nothing
 * written): `o` or `state_pool` sharing a byte with any other tensor (by
 * address range, on the host and the device); page_size outside [64, 2^30]
 * or not a multiple of 64; a sequence of more than 2^31 - 1 tokens; in
 * checked mode host q / k / v holding inf or NaN (docs/BadInputs.md). */
GDN_C_API gdn_status gdn_call(gdn_context *context, int32_t interface, int32_t count,
                    const char *const *names, const DLTensor *const *tensors,
                    const gdn_call_flags *flags, void *stream);

/* ---- plans: one call's layout, validated once, run on many tensors ---- */
typedef struct gdn_plan gdn_plan;

/* Validates a call as gdn_call does (the same refusals; nothing runs) and
 * keeps what it resolved: for device tensors, the kernels, the launch grid
 * and the workspaces. gdn_plan_run then runs calls whose tensors have the
 * same names, dtypes, shapes, strides and devices at other addresses: the
 * per-layer calls of one serving step. The plan keeps the tensors' layout,
 * not the tensors. `stream` serves checked mode's copies. Destroy plans
 * before their context; one runs at a time per context. */
GDN_C_API gdn_status gdn_plan_create(gdn_context *context, int32_t interface,
                                     int32_t count, const char *const *names,
                                     const DLTensor *const *tensors,
                                     const gdn_call_flags *flags, void *stream,
                                     gdn_plan **plan);

/* Runs `plan` on the tensors whose first elements (byte offset applied)
 * are at `data[i]`, in the order of the names given at creation. The
 * caller vouches that they have the layout of the tensors the plan was
 * made with. Refused as gdn_call refuses them: o or state_pool sharing a
 * byte with another tensor, a device address the kernels cannot use.
 * An unchecked device plan launches its kernels at once (no validation
 * beyond that, no allocation but the stream's workspace arena, no copy,
 * no wait); a host or checked plan takes gdn_call's whole path. */
GDN_C_API gdn_status gdn_plan_run(gdn_plan *plan, const void *const *data,
                                  void *stream);
GDN_C_API void gdn_plan_destroy(gdn_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* GDN_C_GDN_H */

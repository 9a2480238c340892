/*
 * rspv_specialize.h: C interface of rspv-specialize, which specializes
 * AMD-flavoured SPIR-V (feature predicates `__builtin_amdgcn_processor_is`,
 * `__builtin_amdgcn_is_invocable`) for one GPU.
 *
 * Link librspv_specialize.so or librspv_specialize.a (plus -lpthread -ldl
 * -lm); `pkg-config --cflags --libs rspv_specialize` says how once it is
 * installed (`cargo cinstall` in capi/, or capi/rspv_specialize.pc.in).
 * The implementation is capi/src/lib.rs, built by `cargo build -p
 * rspv-specialize-capi`.
 *
 * Threads: one RspvTables handle may be shared by any number of threads at
 * once (it is immutable once built); it must not be freed while another
 * thread uses it. Every other call is independent of calls on other threads.
 * The last-error message is kept per thread.
 *
 * Errors: rspv_specialize, rspv_specialize_with_report and rspv_inspect
 * return one of the RSPV_* codes below; rspv_tables_embedded /
 * rspv_tables_from_dir return NULL. Either way rspv_last_error() then
 * returns a message. No panic or exception crosses this interface.
 *
 * Memory: what the library returns, the caller frees with the matching
 * call: tables with rspv_tables_free, modules with rspv_buffer_free, JSON
 * text with rspv_string_free.
 */
#ifndef RSPV_SPECIALIZE_H
#define RSPV_SPECIALIZE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The version this header declares; rspv_version() is the library's. */
#define RSPV_SPECIALIZE_VERSION "0.1.0"

/* Status codes. */
#define RSPV_OK 0
/* Bad input: not a SPIR-V module, a malformed predicate table or module
   structure, a malformed arch table, or an I/O error. */
#define RSPV_ERR_INPUT 1
/* Unknown processor or malformed target ID (e.g. a feature it lacks). */
#define RSPV_ERR_TARGET 2
/* A predicate reaches a use that cannot be folded. */
#define RSPV_ERR_UNRESOLVED 3
/* Invalid argument: a NULL pointer, or wave64 neither 0 nor 1. */
#define RSPV_ERR_ARGUMENT 4
/* Internal error (a panic in the library); the message says where. */
#define RSPV_ERR_PANIC 5

/* Opaque: the per-GPU arch tables predicates are resolved against. */
typedef struct RspvTables RspvTables;

/*
 * The tables built into the library (every AMDGPU processor LLVM knows).
 * Returns a new handle owned by the caller, to free with rspv_tables_free,
 * or NULL on error (see rspv_last_error).
 */
RspvTables *rspv_tables_embedded(void);

/*
 * Loads the tables from the *.yaml files in directory `path` (a
 * NUL-terminated string, read during the call only). Returns a new handle
 * owned by the caller, to free with rspv_tables_free, or NULL on error
 * (see rspv_last_error; the message names the file and line at fault).
 */
RspvTables *rspv_tables_from_dir(const char *path);

/*
 * Frees a handle from rspv_tables_embedded / rspv_tables_from_dir. NULL is
 * ignored. No thread may use the handle during or after this call.
 */
void rspv_tables_free(RspvTables *tables);

/*
 * Specializes the SPIR-V module input[0..input_len) (either byte order; the
 * output keeps it) -- or the one SPIR-V module of an offload bundle,
 * compressed bundle or ELF file holding exactly one (several are an error
 * listing them) -- for the target ID `target_id` (NUL-terminated, e.g.
 * "gfx950", "gfx90a:xnack+", "gfx11-generic"); `wave64` is 1 for wave64 on
 * dual-wave processors, else 0.
 *
 * On success returns RSPV_OK and sets *out to a new buffer of *out_len bytes
 * that the caller owns and frees with rspv_buffer_free. On error returns a
 * nonzero RSPV_ERR_* code, allocates nothing, sets *out to NULL and *out_len
 * to 0 (when out / out_len are not NULL), and rspv_last_error() describes
 * the error. The inputs are only read, during the call. `tables` may be in
 * use by other threads at the same time.
 */
int rspv_specialize(const RspvTables *tables, const char *target_id, int wave64,
                    const unsigned char *input, size_t input_len,
                    unsigned char **out, size_t *out_len);

/*
 * rspv_specialize, and the report of what was resolved and removed as JSON
 * text: on success *report_json is a new NUL-terminated string the caller
 * frees with rspv_string_free; on error it is set to NULL (and *out, *out_len
 * as for rspv_specialize). The report is one object: "target" (the target ID
 * as given), "target_id" (canonical), "processor", "wavefront_size" (32 or
 * 64), "table_removed", "predicates" (in SpecId order: "spec_id", "name",
 * "value", "note"), "branches_folded", "selects_folded", "phis_folded",
 * "blocks_removed", "functions_rewritten", "functions_removed" -- the same
 * as `rspv-specialize --report json`.
 */
int rspv_specialize_with_report(const RspvTables *tables, const char *target_id,
                                int wave64, const unsigned char *input,
                                size_t input_len, unsigned char **out,
                                size_t *out_len, char **report_json);

/*
 * Reads the predicate table of the module input[0..input_len) (or of the
 * one module of a container, as rspv_specialize reads it) without
 * changing anything. On success returns RSPV_OK and sets *json to a new
 * NUL-terminated string (free with rspv_string_free): {"has_table",
 * "predicates": [...]}, predicates in SpecId order with "spec_id", "name",
 * "kind", "call_sites", "builtins" (those requiring it) and "note". With a
 * `target_id` (NULL for none; `wave64` as for rspv_specialize) the object
 * also has "target", "target_id", "processor" and "wavefront_size", and
 * each predicate its "value" -- the same as `rspv-specialize inspect
 * --format json [--target T]` without "input". On error *json is NULL.
 */
int rspv_inspect(const RspvTables *tables, const char *target_id, int wave64,
                 const unsigned char *input, size_t input_len, char **json);

/*
 * Frees a buffer rspv_specialize returned; `len` is the length returned
 * with it. NULL is ignored.
 */
void rspv_buffer_free(unsigned char *ptr, size_t len);

/*
 * Frees a string from rspv_specialize_with_report or rspv_inspect. NULL is
 * ignored.
 */
void rspv_string_free(char *s);

/* The library's version, e.g. "0.1.0" (static; never freed). */
const char *rspv_version(void);

/*
 * The message of the calling thread's last failed call (NUL-terminated,
 * owned by the library), or NULL if the last call of rspv_tables_embedded,
 * rspv_tables_from_dir, rspv_specialize, rspv_specialize_with_report or
 * rspv_inspect on this thread succeeded or none was made. Valid until the
 * next of those calls on the same thread. Messages name what is wrong and
 * where; they carry no command-line hints.
 */
const char *rspv_last_error(void);

#ifdef __cplusplus
}
#endif

#endif /* RSPV_SPECIALIZE_H */

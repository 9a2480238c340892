/*
 * The C ABI from two threads at once, sharing one RspvTables; and the
 * report, inspect and version calls.
 *
 * Usage: two_targets_two_threads INPUT.spv REF_GFX942.spv REF_GFX1100.spv OUTDIR
 *
 * Specializes INPUT for gfx942 and gfx1100 on two threads that start
 * together, then checks each output on the main thread: non-empty, SPIR-V
 * magic first, byte-equal to the reference the Rust library wrote. Also
 * checks an unknown target, a NULL argument, and that the last error is
 * per thread; that rspv_version() is the header's RSPV_SPECIALIZE_VERSION;
 * and writes the JSON of rspv_specialize_with_report (tahiti, wave64
 * gfx1100) and rspv_inspect (no target, gfx942) to OUTDIR/report_tahiti.json,
 * OUTDIR/report_gfx1100_wave64.json, OUTDIR/inspect.json and
 * OUTDIR/inspect_gfx942.json for the Rust test to compare with the Rust
 * library's. Prints "ok" and exits 0, or prints what failed and exits 1.
 * Run by capi/tests/c_abi.rs.
 */
/* pthread barriers under -std=c99 */
#define _POSIX_C_SOURCE 200112L

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rspv_specialize.h"

static int failures = 0;

#define CHECK(cond, ...)                                                      \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);   \
            fprintf(stderr, __VA_ARGS__);                                     \
            fprintf(stderr, "\n");                                            \
            failures++;                                                       \
        }                                                                     \
    } while (0)

static unsigned char *read_file(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    size_t cap = 0;
    *len = 0;
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(1);
    }
    for (;;) {
        size_t n;
        if (*len == cap) {
            cap = cap ? cap * 2 : 4096;
            buf = realloc(buf, cap);
            if (!buf) {
                fprintf(stderr, "out of memory\n");
                exit(1);
            }
        }
        n = fread(buf + *len, 1, cap - *len, f);
        if (n == 0)
            break;
        *len += n;
    }
    fclose(f);
    return buf;
}

struct job {
    const RspvTables *tables;
    const char *target;
    const unsigned char *input;
    size_t input_len;
    pthread_barrier_t *start;
    /* results */
    int code;
    unsigned char *out;
    size_t out_len;
    int error_was_null; /* rspv_last_error() on this thread after success */
};

static void *worker(void *arg) {
    struct job *j = arg;
    pthread_barrier_wait(j->start);
    j->code = rspv_specialize(j->tables, j->target, 0, j->input, j->input_len,
                              &j->out, &j->out_len);
    j->error_was_null = rspv_last_error() == NULL;
    return NULL;
}

/* Writes `text` to OUTDIR/name. */
static void write_text(const char *dir, const char *name, const char *text) {
    char path[4096];
    FILE *f;
    snprintf(path, sizeof path, "%s/%s", dir, name);
    f = fopen(path, "wb");
    if (!f) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(1);
    }
    fputs(text, f);
    fclose(f);
}

/* rspv_specialize_with_report: the output must equal rspv_specialize's,
   the report is written to OUTDIR/name. */
static void check_report(const RspvTables *tables, const char *target,
                         int wave64, const unsigned char *input,
                         size_t input_len, const char *dir, const char *name) {
    unsigned char *plain = NULL, *out = NULL;
    size_t plain_len = 0, out_len = 0;
    char *report = (char *)1;
    int code = rspv_specialize(tables, target, wave64, input, input_len,
                               &plain, &plain_len);
    CHECK(code == RSPV_OK, "%s: rspv_specialize code %d", target, code);
    code = rspv_specialize_with_report(tables, target, wave64, input,
                                       input_len, &out, &out_len, &report);
    CHECK(code == RSPV_OK, "%s: with_report code %d: %s", target, code,
          rspv_last_error() ? rspv_last_error() : "");
    if (code == RSPV_OK) {
        CHECK(report != NULL, "%s: no report", target);
        CHECK(out_len == plain_len && memcmp(out, plain, out_len) == 0,
              "%s: with_report wrote another module", target);
        if (report)
            write_text(dir, name, report);
    }
    rspv_string_free(report);
    rspv_buffer_free(out, out_len);
    rspv_buffer_free(plain, plain_len);
}

/* rspv_inspect: written to OUTDIR/name. */
static void check_inspect(const RspvTables *tables, const char *target,
                          const unsigned char *input, size_t input_len,
                          const char *dir, const char *name) {
    char *json = (char *)1;
    int code = rspv_inspect(tables, target, 0, input, input_len, &json);
    CHECK(code == RSPV_OK, "inspect %s: code %d: %s", target ? target : "",
          code, rspv_last_error() ? rspv_last_error() : "");
    if (code == RSPV_OK && json) {
        CHECK(rspv_last_error() == NULL, "inspect: error set after success");
        write_text(dir, name, json);
    }
    rspv_string_free(json);
}

static void check_result(const struct job *j, const char *ref_path) {
    static const unsigned char magic[4] = {0x03, 0x02, 0x23, 0x07};
    size_t ref_len;
    unsigned char *ref;
    CHECK(j->code == RSPV_OK, "%s: code %d", j->target, j->code);
    CHECK(j->error_was_null, "%s: last error set after success", j->target);
    if (j->code != RSPV_OK)
        return;
    CHECK(j->out != NULL && j->out_len > 0, "%s: empty output", j->target);
    CHECK(j->out_len % 4 == 0, "%s: %lu bytes", j->target,
          (unsigned long)j->out_len);
    if (j->out_len >= 4)
        CHECK(memcmp(j->out, magic, 4) == 0, "%s: no SPIR-V magic", j->target);
    ref = read_file(ref_path, &ref_len);
    CHECK(j->out_len == ref_len, "%s: %lu bytes, reference %lu", j->target,
          (unsigned long)j->out_len, (unsigned long)ref_len);
    if (j->out_len == ref_len)
        CHECK(memcmp(j->out, ref, ref_len) == 0, "%s: bytes differ from %s",
              j->target, ref_path);
    free(ref);
}

int main(int argc, char **argv) {
    size_t input_len;
    unsigned char *input;
    RspvTables *tables;
    pthread_barrier_t start;
    pthread_t threads[2];
    struct job jobs[2];
    const char *targets[2] = {"gfx942", "gfx1100"};
    unsigned char *out = (unsigned char *)1;
    size_t out_len = 7;
    const char *err;
    int i, code;

    if (argc != 5) {
        fprintf(stderr,
                "usage: %s INPUT.spv REF_GFX942.spv REF_GFX1100.spv OUTDIR\n",
                argv[0]);
        return 2;
    }
    CHECK(strcmp(rspv_version(), RSPV_SPECIALIZE_VERSION) == 0,
          "rspv_version() is %s, the header says %s", rspv_version(),
          RSPV_SPECIALIZE_VERSION);
    input = read_file(argv[1], &input_len);
    tables = rspv_tables_embedded();
    if (!tables) {
        fprintf(stderr, "rspv_tables_embedded: %s\n", rspv_last_error());
        return 1;
    }
    CHECK(rspv_last_error() == NULL, "error set after success");

    /* An unknown target fails, allocates nothing and says why. */
    code = rspv_specialize(tables, "gfx9999", 0, input, input_len, &out,
                           &out_len);
    CHECK(code == RSPV_ERR_TARGET, "gfx9999: code %d", code);
    CHECK(out == NULL && out_len == 0, "gfx9999: output not reset");
    err = rspv_last_error();
    CHECK(err != NULL && strstr(err, "gfx9999") != NULL, "gfx9999: message %s",
          err ? err : "(null)");

    /* Two threads, one shared table set, at the same time. */
    pthread_barrier_init(&start, NULL, 2);
    for (i = 0; i < 2; i++) {
        memset(&jobs[i], 0, sizeof jobs[i]);
        jobs[i].tables = tables;
        jobs[i].target = targets[i];
        jobs[i].input = input;
        jobs[i].input_len = input_len;
        jobs[i].start = &start;
        if (pthread_create(&threads[i], NULL, worker, &jobs[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            return 1;
        }
    }
    for (i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    pthread_barrier_destroy(&start);

    /* The workers' successes did not touch this thread's last error. */
    err = rspv_last_error();
    CHECK(err != NULL && strstr(err, "gfx9999") != NULL,
          "main thread's last error lost: %s", err ? err : "(null)");

    check_result(&jobs[0], argv[2]);
    check_result(&jobs[1], argv[3]);
    CHECK(jobs[0].out_len != jobs[1].out_len ||
              (jobs[0].out && jobs[1].out &&
               memcmp(jobs[0].out, jobs[1].out, jobs[0].out_len) != 0),
          "gfx942 and gfx1100 gave the same module");

    /* A NULL argument is an error, not a crash. */
    code = rspv_specialize(tables, NULL, 0, input, input_len, &out, &out_len);
    CHECK(code == RSPV_ERR_ARGUMENT, "NULL target: code %d", code);
    CHECK(rspv_last_error() != NULL, "NULL target: no message");

    /* Reports and inspections, compared with the Rust library's by the
       Rust test. */
    check_report(tables, "tahiti", 0, input, input_len, argv[4],
                 "report_tahiti.json");
    check_report(tables, "gfx1100", 1, input, input_len, argv[4],
                 "report_gfx1100_wave64.json");
    check_inspect(tables, NULL, input, input_len, argv[4], "inspect.json");
    check_inspect(tables, "gfx942", input, input_len, argv[4],
                  "inspect_gfx942.json");

    /* Errors of the new calls: no report or JSON is left behind, and the
       message is the library's, without command-line hints. */
    {
        char *json = (char *)1;
        code = rspv_inspect(tables, NULL, 0, (const unsigned char *)"# README\n",
                            9, &json);
        CHECK(code == RSPV_ERR_INPUT, "inspect of a README: code %d", code);
        CHECK(json == NULL, "inspect of a README: JSON not reset");
        err = rspv_last_error();
        CHECK(err != NULL && strstr(err, "not SPIR-V") != NULL,
              "inspect of a README: message %s", err ? err : "(null)");
        json = (char *)1;
        code = rspv_specialize_with_report(tables, "gfx9999", 0, input,
                                           input_len, &out, &out_len, &json);
        CHECK(code == RSPV_ERR_TARGET, "report gfx9999: code %d", code);
        CHECK(json == NULL && out == NULL && out_len == 0,
              "report gfx9999: outputs not reset");
        err = rspv_last_error();
        CHECK(err != NULL && strstr(err, "rspv-specialize targets") == NULL,
              "a command-line hint in a C ABI message: %s", err ? err : "(null)");
        code = rspv_inspect(tables, NULL, 0, input, input_len, NULL);
        CHECK(code == RSPV_ERR_ARGUMENT, "inspect into NULL: code %d", code);
    }

    for (i = 0; i < 2; i++)
        rspv_buffer_free(jobs[i].out, jobs[i].out_len);
    rspv_tables_free(tables);
    free(input);
    if (failures) {
        fprintf(stderr, "%d check(s) failed\n", failures);
        return 1;
    }
    printf("ok\n");
    return 0;
}

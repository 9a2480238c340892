/*
 * The C ABI from two threads at once, sharing one RspvTables.
 *
 * Usage: two_targets_two_threads INPUT.spv REF_GFX942.spv REF_GFX1100.spv
 *
 * Specializes INPUT for gfx942 and gfx1100 on two threads that start
 * together, then checks each output on the main thread: non-empty, SPIR-V
 * magic first, byte-equal to the reference the Rust library wrote. Also
 * checks an unknown target, a NULL argument, and that the last error is
 * per thread. Prints "ok" and exits 0, or prints what failed and exits 1.
 * Run by tests/c_abi.rs.
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

    if (argc != 4) {
        fprintf(stderr, "usage: %s INPUT.spv REF_GFX942.spv REF_GFX1100.spv\n",
                argv[0]);
        return 2;
    }
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

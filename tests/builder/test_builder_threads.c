/* PPROF_BUILDER_THREAD_SAFE: several threads add samples (in one call, by handles with a retry
 * on PPROF_E_STALE, and across several calls as open samples) while another thread
 * serializes-and-resets. Every value total must be conserved over all emitted profiles plus
 * the final one, and every sample must arrive whole. Meant to run under ThreadSanitizer too. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bhelp.h"

enum { WORKERS = 4, ITERS = 3000, DEPTH = 4 };

static const pprof_builder_value_type types[] = {{"samples", "count"}, {"weight", "units"}};

typedef struct shared {
    pprof_builder *b;
    atomic_int workers_left;
    atomic_llong added[2]; /* values whose add or commit returned PPROF_OK */
    atomic_llong stale_retries;
    atomic_int errors;
    /* written by the serializer thread only */
    long long seen[2];
    long long profiles;
    int bad_profiles;
} shared;

typedef struct worker {
    shared *sh;
    int id;
} worker;

static void
note_added(shared *sh, const int64_t *v)
{
    atomic_fetch_add(&sh->added[0], v[0]);
    atomic_fetch_add(&sh->added[1], v[1]);
}

/* Interns a stack of handles; returns the status of the first failing call. */
static pprof_status
make_stack(pprof_builder *b, int id, int i, pprof_builder_loc *st)
{
    for (int d = 0; d < DEPTH; d++) {
        char name[48];
        snprintf(name, sizeof(name), "w%d_fn%d_%d", id, d, (i + d) % 7);
        pprof_builder_str s;
        pprof_builder_fn f = {0};
        pprof_status r = pprof_builder_intern_cstr(b, name, &s, NULL);
        if (!r)
            r = pprof_builder_function(b, s, s, (pprof_builder_str)PPROF_BUILDER_NONE, 0, &f, NULL);
        pprof_builder_line ln = {f, d + 1, 0};
        if (!r)
            r = pprof_builder_location(b, (pprof_builder_map)PPROF_BUILDER_NONE, 0, &ln, 1, false,
                                       &st[d], NULL);
        if (r)
            return r;
    }
    return PPROF_OK;
}

static void *
work(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    pprof_builder *b = sh->b;
    for (int i = 0; i < ITERS; i++) {
        int64_t v[2] = {1, (int64_t)(w->id * 1000 + i % 97)};
        if (i % 2 == 0) {
            /* by handles: a reset may land between interning and adding */
            for (;;) {
                pprof_builder_loc st[DEPTH];
                pprof_builder_label lab[1];
                pprof_status r = make_stack(b, w->id, i, st);
                if (!r)
                    r = pprof_builder_intern_cstr(b, "kind", &lab[0].key, NULL);
                if (!r)
                    r = pprof_builder_intern_cstr(b, "whole", &lab[0].str, NULL);
                lab[0].num = 0;
                lab[0].num_unit = (pprof_builder_str)PPROF_BUILDER_NONE;
                if (!r)
                    r = pprof_builder_add_sample(b, v, 2, st, DEPTH, lab, 1, NULL);
                if (r == PPROF_E_STALE) {
                    atomic_fetch_add(&sh->stale_retries, 1);
                    continue;
                }
                if (r)
                    atomic_fetch_add(&sh->errors, 1);
                else
                    note_added(sh, v);
                break;
            }
        } else {
            /* across several calls, by value: never stale, lands whole */
            pprof_builder_open o;
            if (pprof_builder_open_begin(b, &o, NULL)) {
                atomic_fetch_add(&sh->errors, 1);
                continue;
            }
            bool ok = true;
            for (int d = 0; d < DEPTH && ok; d++) {
                char name[48];
                snprintf(name, sizeof(name), "w%d_open%d_%d", w->id, d, i % 5);
                pprof_builder_frame fr = {name, NULL, "t.c", d + 1, 0, 0, 0, 0, 0, NULL, NULL};
                ok = pprof_builder_open_add_frame(b, o, &fr, NULL) == PPROF_OK;
                if (d == 1)
                    ok = ok && pprof_builder_open_add_label_cstr(b, o, "kind", "whole", 0, NULL,
                                                                 NULL) == PPROF_OK;
            }
            if (ok && pprof_builder_open_commit(b, o, v, 2, NULL) == PPROF_OK) {
                note_added(sh, v);
            } else {
                atomic_fetch_add(&sh->errors, 1);
                pprof_builder_open_abort(b, o, NULL);
            }
        }
    }
    atomic_fetch_sub(&sh->workers_left, 1);
    return NULL;
}

/* Checks that every sample is whole and adds its values to the totals. */
static void
absorb(shared *sh, const pprof_buffer *buf)
{
    pprof_profile *p = bhelp_decode(buf->data, buf->len);
    if (!p) {
        sh->bad_profiles++;
        return;
    }
    for (size_t i = 0; i < pprof_profile_count(p, PPROF_TABLE_SAMPLE); i++) {
        pprof_sample s = pprof_profile_sample(p, i);
        if (s.n_location_id != DEPTH || s.n_label != 1 ||
            !bhelp_str_is(p, s.label[0].str, "whole")) {
            printf("# sample %zu is not whole: %zu frames, %zu labels\n", i, s.n_location_id,
                   s.n_label);
            sh->bad_profiles++;
        }
        sh->seen[0] += s.value[0];
        sh->seen[1] += s.value[1];
    }
    sh->profiles++;
    pprof_profile_free(p);
}

static void *
serializer(void *arg)
{
    shared *sh = arg;
    pprof_write_options raw = {.struct_size = sizeof(raw), .format = PPROF_FORMAT_RAW};
    while (atomic_load(&sh->workers_left) > 0) {
        pprof_buffer buf = {0};
        pprof_error e;
        if (pprof_builder_write_memory(sh->b, PPROF_BUILDER_RESET, &raw, &buf, &e) != PPROF_OK) {
            printf("# serialize: %s\n", e.message);
            sh->bad_profiles++;
        } else {
            absorb(sh, &buf);
        }
        pprof_buffer_free(&buf);
    }
    return NULL;
}

int
main(void)
{
    tap t = {0, 0};
    shared sh;
    memset(&sh, 0, sizeof(sh));
    pprof_builder_options o = PPROF_BUILDER_OPTIONS_INIT;
    o.flags = PPROF_BUILDER_THREAD_SAFE;
    o.sample_types = types;
    o.n_sample_types = 2;
    if (pprof_builder_new(&o, &sh.b, NULL) != PPROF_OK)
        return 1;
    atomic_store(&sh.workers_left, WORKERS);
    pthread_t ser, th[WORKERS];
    worker ws[WORKERS];
    pthread_create(&ser, NULL, serializer, &sh);
    for (int i = 0; i < WORKERS; i++) {
        ws[i] = (worker){&sh, i};
        pthread_create(&th[i], NULL, work, &ws[i]);
    }
    for (int i = 0; i < WORKERS; i++)
        pthread_join(th[i], NULL);
    pthread_join(ser, NULL);

    pprof_buffer last = {0};
    uint64_t dropped = 1;
    pprof_write_options raw = {.struct_size = sizeof(raw), .format = PPROF_FORMAT_RAW};
    tap_ok(&t, pprof_builder_finish(sh.b, 0, NULL, &raw, &last, &dropped, NULL) == PPROF_OK,
           "final finish");
    absorb(&sh, &last);
    pprof_buffer_free(&last);
    tap_diag("%lld profiles emitted during the run; %lld stale retries", sh.profiles - 1,
             (long long)atomic_load(&sh.stale_retries));
    tap_ok(&t, atomic_load(&sh.errors) == 0, "no call failed other than with STALE");
    tap_ok(&t, dropped == 0, "no open sample left at the end");
    tap_ok(&t, sh.bad_profiles == 0, "every profile decoded, validated, and held whole samples");
    long long want0 = (long long)WORKERS * ITERS;
    tap_ok(&t, atomic_load(&sh.added[0]) == want0 && sh.seen[0] == want0,
           "samples total conserved: added %lld, emitted %lld, expected %lld",
           (long long)atomic_load(&sh.added[0]), sh.seen[0], want0);
    tap_ok(&t, sh.seen[1] == atomic_load(&sh.added[1]),
           "weight total conserved: added %lld, emitted %lld", (long long)atomic_load(&sh.added[1]),
           sh.seen[1]);
    tap_ok(&t, sh.profiles >= 2, "the serializer ran concurrently (%lld profiles)", sh.profiles);
    tap_ok(&t, pprof_builder_free(sh.b) == 0, "nothing dropped at free");
    return tap_done(&t);
}

/* fp_task_start / fp_task_join (team.c): without a team a task gets a thread of its own;
 * with one, every task runs once, its writes are seen after the join, a task no team
 * thread has taken is run by its joiner (so a join never waits behind a busy team), the
 * queue stays whole when a joiner takes a task out of its middle or its end, and the
 * team's threads run what is left in order; spread pins the caller and the team apart and
 * gives the masks back. The tests run in this order: the team is
 * process-wide, the first one needs it not started yet. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>

#include "flyprof/cpus.h"
#include "flyprof/team.h"

typedef struct job {
    pthread_t ran_on;
    int value;
    int seq;                 /* order it ran in (next_seq) */
    atomic_bool done;        /* set last by the task */
    atomic_bool *release;    /* a blocker: spin until set (or 5 s: timed_out) */
    atomic_bool started;
    bool timed_out;
} job;

static atomic_int next_seq;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *run_job(void *p)
{
    job *j = p;
    j->ran_on = pthread_self();
    atomic_store(&j->started, true);
    if (j->release) {
        double t0 = now_s();
        while (!atomic_load(j->release))
            if (now_s() - t0 > 5.0) {
                j->timed_out = true;
                break;
            }
    }
    j->value = 42;
    j->seq = atomic_fetch_add(&next_seq, 1);
    atomic_store(&j->done, true);
    return NULL;
}

/* Wait (at most 2 s) for a task to finish on its own; true if it did. */
static bool wait_done(job *j)
{
    double t0 = now_s();
    while (!atomic_load(&j->done))
        if (now_s() - t0 > 2.0)
            return false;
    return true;
}

static void wait_started(job *j)
{
    double t0 = now_s();
    while (!atomic_load(&j->started))
        if (now_s() - t0 > 5.0)
            fail_msg("a task on the team did not start within 5 s");
}

static void test_no_team(void **state)
{
    (void)state;
    assert_int_equal(fp_team_size(), 0);
    job j = {0};
    fp_task t;
    assert_int_equal(fp_task_start(&t, run_job, &j), 0);
    fp_task_join(&t);
    assert_int_equal(j.value, 42);
    assert_false(pthread_equal(j.ran_on, pthread_self())); /* a thread of its own */
    fp_team_warm(0);
    assert_int_equal(fp_team_size(), 0);
}

static void test_many_tasks(void **state)
{
    (void)state;
    fp_team_warm(1);
    fp_team_warm(1); /* a second call starts nothing more */
    assert_int_equal(fp_team_size(), 1);
    enum { N = 300 };
    job *j = calloc(N, sizeof *j);
    fp_task *t = calloc(N, sizeof *t);
    assert_non_null(j);
    assert_non_null(t);
    for (int i = 0; i < N; i++)
        assert_int_equal(fp_task_start(&t[i], run_job, &j[i]), 0);
    for (int i = N; i-- > 0;) /* the last first: most of them are still queued, run here */
        fp_task_join(&t[i]);
    for (int i = 0; i < N; i++)
        assert_int_equal(j[i].value, 42);
    free(j);
    free(t);
}

/* The team's thread is held by a blocker: a task joined meanwhile runs in the joiner. */
static void test_join_runs_unclaimed(void **state)
{
    (void)state;
    atomic_bool release = false;
    job blocker = {.release = &release}, b = {0};
    fp_task tb, tx;
    assert_int_equal(fp_task_start(&tb, run_job, &blocker), 0);
    wait_started(&blocker);
    assert_int_equal(fp_task_start(&tx, run_job, &b), 0);
    fp_task_join(&tx);
    assert_int_equal(b.value, 42);
    assert_true(pthread_equal(b.ran_on, pthread_self()));
    assert_false(atomic_load(&blocker.done)); /* still held: the join did not wait for it */
    atomic_store(&release, true);
    fp_task_join(&tb);
    assert_false(blocker.timed_out);
    assert_false(pthread_equal(blocker.ran_on, pthread_self()));
}

/* Take a task out of the middle, then out of the end, of a queue the team's thread cannot
 * serve yet: the rest, and a task queued after that, still run on the team, in order. */
static void test_queue_stays_whole(void **state)
{
    (void)state;
    atomic_bool release = false;
    job blocker = {.release = &release}, a = {0}, mid = {0}, end = {0}, c = {0};
    fp_task tb, ta, tm, te, tc;
    assert_int_equal(fp_task_start(&tb, run_job, &blocker), 0);
    wait_started(&blocker);
    assert_int_equal(fp_task_start(&ta, run_job, &a), 0);
    assert_int_equal(fp_task_start(&tm, run_job, &mid), 0);
    assert_int_equal(fp_task_start(&te, run_job, &end), 0);
    fp_task_join(&tm); /* the middle */
    fp_task_join(&te); /* now the end */
    assert_true(pthread_equal(mid.ran_on, pthread_self()));
    assert_true(pthread_equal(end.ran_on, pthread_self()));
    assert_int_equal(fp_task_start(&tc, run_job, &c), 0);
    atomic_store(&release, true);
    assert_true(wait_done(&a)); /* on the team, without a join */
    assert_true(wait_done(&c));
    fp_task_join(&ta);
    fp_task_join(&tc);
    fp_task_join(&tb);
    assert_false(pthread_equal(a.ran_on, pthread_self()));
    assert_false(pthread_equal(c.ran_on, pthread_self()));
    assert_true(a.seq < c.seq);
    assert_false(blocker.timed_out);
}

/* A join of a task the team is running waits for it, then sees its writes. */
static void test_join_waits(void **state)
{
    (void)state;
    atomic_bool release = false;
    job j = {.release = &release};
    fp_task t;
    assert_int_equal(fp_task_start(&t, run_job, &j), 0);
    wait_started(&j);
    atomic_store(&release, true);
    fp_task_join(&t);
    assert_true(atomic_load(&j.done));
    assert_int_equal(j.value, 42);
    assert_false(pthread_equal(j.ran_on, pthread_self()));
}

/* What a task sees of its own thread: the CPUs it may run on. */
typedef struct mask_job {
    cpu_set_t mask;
    int rc;
    atomic_bool *release; /* hold the thread until set, so a second task goes to another one */
    atomic_bool started;
} mask_job;

static void *read_mask(void *p)
{
    mask_job *m = p;
    m->rc = sched_getaffinity(0, sizeof m->mask, &m->mask);
    atomic_store(&m->started, true);
    double t0 = now_s();
    while (m->release && !atomic_load(m->release) && now_s() - t0 < 5.0)
        ;
    return NULL;
}

/* A task on the team: the mask of the thread that ran it (not the joiner: it is held
 * by a blocker until the team thread has taken it). */
static cpu_set_t team_mask(void)
{
    atomic_bool release = false;
    mask_job m = {.release = &release};
    fp_task t;
    assert_int_equal(fp_task_start(&t, read_mask, &m), 0);
    double t0 = now_s();
    while (!atomic_load(&m.started))
        if (now_s() - t0 > 5.0)
            fail_msg("no team thread took the task within 5 s");
    atomic_store(&release, true);
    fp_task_join(&t);
    assert_int_equal(m.rc, 0);
    return m.mask;
}

static cpu_set_t my_mask(void)
{
    cpu_set_t s;
    assert_int_equal(sched_getaffinity(0, sizeof s, &s), 0);
    return s;
}

/* Spread (team.h): the caller kept on its CPU, each team thread (the one there was and
 * one warmed meanwhile) on one other CPU of the caller's mask, fp_cpus_usable unchanged,
 * nesting, and every mask given back at the end; with a mask of one CPU, nothing. */
static void test_spread(void **state)
{
    (void)state;
    cpu_set_t all = my_mask();
    if (CPU_COUNT(&all) < 2)
        skip(); /* one CPU: the no-op half is below, and needs a second CPU to leave */
    int usable = fp_cpus_usable();
    assert_int_equal(usable, CPU_COUNT(&all));
    fp_team_spread_begin();
    cpu_set_t me = my_mask();
    assert_int_equal(CPU_COUNT(&me), 1);
    int home = sched_getcpu();
    assert_true(CPU_ISSET(home, &me));
    assert_true(CPU_ISSET(home, &all));
    assert_int_equal(fp_cpus_usable(), usable); /* the mask it had, not the pinned one */
    assert_int_equal(fp_team_spread_cpus(), usable);
    fp_team_warm(2); /* started while spread: pinned too */
    assert_int_equal(fp_team_size(), 2);
    for (int i = 0; i < 8; i++) { /* either team thread may take it */
        cpu_set_t t = team_mask();
        assert_int_equal(CPU_COUNT(&t), 1);
        assert_false(CPU_ISSET(home, &t));
        CPU_AND(&t, &t, &all);
        assert_int_equal(CPU_COUNT(&t), 1);
    }
    fp_team_spread_begin(); /* nested: the inner end keeps the pins */
    fp_team_spread_end();
    me = my_mask();
    assert_int_equal(CPU_COUNT(&me), 1);
    fp_team_spread_end();
    me = my_mask();
    assert_true(CPU_EQUAL(&me, &all));
    assert_int_equal(fp_team_spread_cpus(), 0);
    for (int i = 0; i < 8; i++) {
        cpu_set_t t = team_mask();
        assert_true(CPU_EQUAL(&t, &all));
    }
    fp_team_spread_end(); /* one end too many: nothing */
    assert_true(CPU_EQUAL(&me, &all));

    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(home, &one);
    assert_int_equal(sched_setaffinity(0, sizeof one, &one), 0);
    fp_team_spread_begin(); /* one CPU: no pins, nothing to give back */
    assert_int_equal(fp_team_spread_cpus(), 0);
    assert_int_equal(fp_cpus_usable(), 1);
    fp_team_spread_end();
    me = my_mask();
    assert_true(CPU_EQUAL(&me, &one));
    assert_int_equal(sched_setaffinity(0, sizeof all, &all), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_no_team),
        cmocka_unit_test(test_many_tasks),
        cmocka_unit_test(test_join_runs_unclaimed),
        cmocka_unit_test(test_queue_stays_whole),
        cmocka_unit_test(test_join_waits),
        cmocka_unit_test(test_spread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

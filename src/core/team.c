/*
 * team.c - see team.h.
 *
 * One process-wide queue under one mutex: the tasks are few (tens per command)
 * and each runs for 0.1 ms or more, so the lock is never contended for long.
 * The spinning reads only two atomics (the queue's length, a task's state).
 */
#include "flyprof/team.h"

#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

enum { FP_TASK_QUEUED = 0, FP_TASK_RUNNING, FP_TASK_DONE };
enum { FP_TEAM_MAX = 8 };

static struct {
    pthread_mutex_t m;
    pthread_cond_t work; /* a task was queued */
    pthread_cond_t done; /* a task finished */
    fp_task *head, *tail;
    atomic_int queued; /* the queue's length: what spinners look at */
    atomic_int n;      /* threads started */
    pthread_t th[FP_TEAM_MAX];
    int spread; /* fp_team_spread_begin depth (the warming thread only) */
    bool pinned; /* the depth-1 begin pinned: saved holds the mask to give back */
    cpu_set_t saved;
    int home; /* the CPU the caller was kept on */
} team = {.m = PTHREAD_MUTEX_INITIALIZER, .work = PTHREAD_COND_INITIALIZER, .done = PTHREAD_COND_INITIALIZER};

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

/* One step of a spin: a CPU pause at first, then give the CPU to anyone who is
 * waiting for it (this thread only wants to stay runnable, not to take a CPU from
 * another process). */
static void relax(unsigned i)
{
    if (i < 64) {
#if defined(__x86_64__) || defined(__i386__)
        __builtin_ia32_pause();
#elif defined(__aarch64__)
        __asm__ volatile("yield");
#endif
    } else {
        sched_yield();
    }
}

/* Spin until ready(arg) or FP_TEAM_SPIN_MS have passed; true if ready. */
static bool spin_until(bool (*ready)(void *), void *arg)
{
    uint64_t t0 = 0;
    for (unsigned i = 0;; i++) {
        if (ready(arg))
            return true;
        if ((i & 63) == 63) {
            uint64_t t = now_ns();
            if (!t0)
                t0 = t;
            else if (t - t0 > (uint64_t)FP_TEAM_SPIN_MS * 1000000u)
                return false;
        }
        relax(i);
    }
}

/* Under team.m: the queue's first task, marked running, or NULL. */
static fp_task *pop_locked(void)
{
    fp_task *t = team.head;
    if (!t)
        return NULL;
    team.head = t->next;
    if (!team.head)
        team.tail = NULL;
    atomic_fetch_sub_explicit(&team.queued, 1, memory_order_relaxed);
    atomic_store_explicit(&t->state, FP_TASK_RUNNING, memory_order_relaxed);
    return t;
}

static bool work_queued(void *unused)
{
    (void)unused;
    return atomic_load_explicit(&team.queued, memory_order_acquire) > 0;
}

static bool task_done(void *t)
{
    return atomic_load_explicit(&((fp_task *)t)->state, memory_order_acquire) == FP_TASK_DONE;
}

static void *team_main(void *unused)
{
    (void)unused;
    for (;;) {
        fp_task *t = NULL;
        spin_until(work_queued, NULL);
        pthread_mutex_lock(&team.m);
        while (!(t = pop_locked()))
            pthread_cond_wait(&team.work, &team.m);
        pthread_mutex_unlock(&team.m);
        t->fn(t->arg);
        /* the last touch of *t: the joiner may return (and free it) as soon as it sees DONE */
        pthread_mutex_lock(&team.m);
        atomic_store_explicit(&t->state, FP_TASK_DONE, memory_order_release);
        pthread_cond_broadcast(&team.done);
        pthread_mutex_unlock(&team.m);
    }
    return NULL;
}

/* Under spread: the CPU for team thread k, the k-th of the saved mask after home
 * (cyclic, home itself skipped). */
static int spread_cpu(int k)
{
    int n = CPU_COUNT(&team.saved) - 1, want = k % n, seen = 0;
    for (int i = 1; i < CPU_SETSIZE; i++) {
        int c = (team.home + i) % CPU_SETSIZE;
        if (CPU_ISSET(c, &team.saved) && seen++ == want)
            return c;
    }
    return team.home;
}

static void pin_thread(pthread_t th, int cpu)
{
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    (void)pthread_setaffinity_np(th, sizeof one, &one); /* best effort: a cpuset may forbid it */
}

void fp_team_spread_begin(void)
{
    if (team.spread++ > 0)
        return;
    int home = sched_getcpu();
    CPU_ZERO(&team.saved);
    if (home < 0 || sched_getaffinity(0, sizeof team.saved, &team.saved) != 0 || CPU_COUNT(&team.saved) < 2 ||
        !CPU_ISSET(home, &team.saved))
        return;
    team.home = home;
    team.pinned = true;
    pin_thread(pthread_self(), home);
    pthread_mutex_lock(&team.m);
    for (int k = 0; k < atomic_load(&team.n); k++)
        pin_thread(team.th[k], spread_cpu(k));
    pthread_mutex_unlock(&team.m);
}

void fp_team_spread_end(void)
{
    if (team.spread == 0 || --team.spread > 0 || !team.pinned)
        return;
    team.pinned = false;
    (void)pthread_setaffinity_np(pthread_self(), sizeof team.saved, &team.saved);
    pthread_mutex_lock(&team.m);
    for (int k = 0; k < atomic_load(&team.n); k++)
        (void)pthread_setaffinity_np(team.th[k], sizeof team.saved, &team.saved);
    pthread_mutex_unlock(&team.m);
}

int fp_team_spread_cpus(void) { return team.pinned ? CPU_COUNT(&team.saved) : 0; }

void fp_team_warm(int n)
{
    if (n > FP_TEAM_MAX)
        n = FP_TEAM_MAX;
    pthread_mutex_lock(&team.m);
    pthread_attr_t at;
    bool attr = pthread_attr_init(&at) == 0;
    if (attr)
        pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    while (attr && atomic_load(&team.n) < n) {
        pthread_t th;
        if (pthread_create(&th, &at, team_main, NULL) != 0)
            break; /* fewer threads: tasks run on the ones there are, or in their joiners */
        int k = atomic_fetch_add(&team.n, 1);
        team.th[k] = th;
        if (team.pinned)
            pin_thread(th, spread_cpu(k));
    }
    if (attr)
        pthread_attr_destroy(&at);
    pthread_mutex_unlock(&team.m);
}

int fp_team_size(void) { return atomic_load(&team.n); }

int fp_task_start(fp_task *t, void *(*fn)(void *), void *arg)
{
    t->fn = fn;
    t->arg = arg;
    t->next = NULL;
    t->own = false;
    atomic_init(&t->state, FP_TASK_QUEUED);
    if (atomic_load(&team.n) == 0) {
        if (pthread_create(&t->th, NULL, fn, arg) != 0)
            return -1;
        t->own = true;
        return 0;
    }
    pthread_mutex_lock(&team.m);
    if (team.tail)
        team.tail->next = t;
    else
        team.head = t;
    team.tail = t;
    atomic_fetch_add_explicit(&team.queued, 1, memory_order_release);
    pthread_cond_signal(&team.work);
    pthread_mutex_unlock(&team.m);
    return 0;
}

/* Under team.m: take t out of the queue (it is queued). */
static void unlink_locked(fp_task *t)
{
    fp_task *prev = NULL;
    for (fp_task *q = team.head; q; prev = q, q = q->next) {
        if (q != t)
            continue;
        if (prev)
            prev->next = q->next;
        else
            team.head = q->next;
        if (team.tail == q)
            team.tail = prev;
        atomic_fetch_sub_explicit(&team.queued, 1, memory_order_relaxed);
        return;
    }
}

void fp_task_join(fp_task *t)
{
    if (t->own) {
        pthread_join(t->th, NULL);
        t->own = false;
        return;
    }
    if (atomic_load_explicit(&t->state, memory_order_acquire) == FP_TASK_QUEUED) {
        pthread_mutex_lock(&team.m);
        bool mine = atomic_load_explicit(&t->state, memory_order_relaxed) == FP_TASK_QUEUED;
        if (mine) {
            unlink_locked(t);
            atomic_store_explicit(&t->state, FP_TASK_RUNNING, memory_order_relaxed);
        }
        pthread_mutex_unlock(&team.m);
        if (mine) { /* nobody took it: run it here rather than wait for a busy team */
            t->fn(t->arg);
            atomic_store_explicit(&t->state, FP_TASK_DONE, memory_order_relaxed);
            return;
        }
    }
    if (spin_until(task_done, t))
        return;
    pthread_mutex_lock(&team.m);
    while (!task_done(t))
        pthread_cond_wait(&team.done, &team.m);
    pthread_mutex_unlock(&team.m);
}

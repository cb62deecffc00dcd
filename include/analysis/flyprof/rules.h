/*
 * rules.h - the knob rules engine: ONE data table (fp_rules) mapping a bubble
 * class and a diagnostic signal to a FlyDSL knob, evaluated over fp_signals.
 *
 * A rule fires when all its conditions hold (a condition whose signal is not
 * measured either fails, passes, or is replaced by a fallback condition, as
 * the row says) and the kernel's bound is in the rule's gate. A fired rule
 * becomes a recommendation with an estimated upper-bound gain, a confidence
 * lowered by capture quality, evidence pointing at the hottest instruction of
 * its class, and an acceptance test a re-capture must pass. Recommendations
 * are ranked by estimated gain (ties: priority, then table order).
 *
 * `flyprof rules` prints the table; skills/references/bubble-knob-table.md is
 * generated from it (fp_rules_markdown).
 */
#ifndef FLYPROF_RULES_H
#define FLYPROF_RULES_H

#include <stddef.h>

#include "flyprof/diff.h"
#include "flyprof/rules_doc.h"
#include "flyprof/signals.h"
#include "flyprof/strbuf.h"

/* The signals a condition can read. CLASS_* take the condition's class name. */
typedef enum fp_sig_kind {
    FP_SIG_NONE = 0,
    FP_SIG_CLASS_STALL_PCT,   /* % of total stall in the class */
    FP_SIG_CLASS_GAIN_PCT,    /* upper-bound kernel gain of the class, % */
    FP_SIG_CLASS_MIX,         /* hit-weighted instruction fraction, 0..1 */
    FP_SIG_SCRATCH_INSTS,     /* executed scratch_* instructions */
    FP_SIG_NOP_MFMA_PCT,      /* s_nop hazard padding between MFMAs, % of latency */
    FP_SIG_LOAD_USE_EXPOSED,  /* hottest vmcnt wait: exposed fraction of load latency */
    FP_SIG_WAVES_PER_CU,      /* resident waves per CU (occupancy model) */
    FP_SIG_VGPR_LIMITED,      /* 1 when VGPRs bind the occupancy, 0 when another limit does */
    FP_SIG_PARTIAL_32B,       /* 32B-partial HBM request fraction, 0..1 */
    FP_SIG_L2_HIT,            /* L2 hit rate, % */
    FP_SIG_LDS_CONFLICT_PCT,  /* LDS bank-conflict cycles, % */
    FP_SIG_MFMA_FRAC,         /* MFMA pipe utilisation (counters mfma_util_pct / 100), 0..1 */
    FP_SIG_PCT_HBM_ROOF,      /* achieved HBM bandwidth / peak, %: counters, else the trace estimate when <= 110 % */
    FP_SIG_LAUNCH_FILL_PCT,   /* % of CUs the launch gives a workgroup (launch model) */
    FP_SIG_GRID_MORE_WAVES,   /* 1 when the grid has more waves than the resident slots (more occupancy can be used) */
    FP_SIG_LDS_WAIT_PCT,      /* lgkmcnt stall on LDS producers, % of total stall (by producer share) */
    FP_SIG_GLOBAL_WAIT_PCT,   /* vmcnt stall on global/flat loads, % of total stall (by producer share) */
    FP_SIG_SMEM_WAIT_PCT,     /* lgkmcnt stall on mid-kernel scalar loads (not the argument prologue), % of total stall */
    FP_SIG_XLANE_WAIT_PCT,    /* lgkmcnt stall on cross-lane shuffles (ds_bpermute/ds_swizzle), % of total stall */
    FP_SIG_VALU_NOP_PCT,      /* s_nop cycles not between two MFMAs (VALU hazard padding), % of total stall */
    FP_SIG_NARROW_PER_WAVE,   /* executed 1/2-byte global loads/stores per traced wave (ISA, no counters) */
    FP_SIG_HBM_BYTES,         /* bytes per dispatch that cross HBM (counters, else the trace's unique/requested bytes) */
    FP_SIG_SIMD_FILL_PCT,     /* % of the machine's SIMDs the launch gives a wave */
    FP_SIG_TAIL_EFF_PCT,      /* launch: work in the rounds / (rounds x slots), %, when the grid needs >= 2 rounds */
    FP_SIG_CU_BUSY_EXCESS,    /* workdist: 100 x (1 - mean / critical CU busy time), over the traced SEs */
    FP_SIG_KIND_COUNT
} fp_sig_kind;

/* One row of the table of signal kinds (rules.c): its printed name ("stall_pct",
 * "counters.l2_hit_rate"), the unit of its value, and the function that reads it
 * from fp_signals (false when not measured; c = the named class, for CLASS_* kinds). */
typedef struct fp_sig_info {
    fp_sig_kind kind;
    const char *name;
    const char *unit;
    bool (*read)(const fp_signals *s, const struct fp_sig_class *c, double *out);
} fp_sig_info;
/* The row of a kind, or NULL for a value out of range. */
const fp_sig_info *fp_sig_info_of(fp_sig_kind k);
/* Name of a signal kind as printed ("class.pct", "counters.l2_hit_rate"). */
const char *fp_sig_kind_name(fp_sig_kind k);
/* Current value; returns false when not measured. */
bool fp_sig_value(const fp_signals *s, fp_sig_kind k, const char *cls, double *out);

typedef enum fp_cmp { FP_GT, FP_LT } fp_cmp;
/* What a condition does when its signal is not measured. */
typedef enum fp_missing { FP_MISS_FAIL, FP_MISS_PASS, FP_MISS_FALLBACK } fp_missing;

typedef struct fp_rule_cond {
    fp_sig_kind sig; /* FP_SIG_NONE ends the list */
    const char *cls; /* for CLASS_* signals */
    fp_cmp cmp;
    double thr;
    fp_missing missing;
    /* FP_MISS_FALLBACK: this condition instead */
    fp_sig_kind fb_sig;
    const char *fb_cls;
    fp_cmp fb_cmp;
    double fb_thr;
} fp_rule_cond;

/* Bound gate bits; FP_GATE_ANY = no gate. */
enum { FP_GATE_MEMORY = 1, FP_GATE_COMPUTE = 2, FP_GATE_LATENCY = 4, FP_GATE_ANY = 7 };

/* How a rule's payoff is estimated (docs/rules.md "Estimated gain"). */
typedef enum fp_gain_model {
    FP_GAIN_CLASS,        /* the class's upper-bound gain */
    FP_GAIN_CLASS_X_SIG,  /* the class's gain x the primary signal (a 0..1 fraction) */
    FP_GAIN_HOT_LINE,     /* the gain of the hottest instruction of the class only */
    FP_GAIN_OCCUPANCY,    /* all bubble gain x (1 - waves / next waves) */
    FP_GAIN_SIGNAL_PCT,   /* the primary signal itself (a % of kernel latency) */
    FP_GAIN_FILL,         /* 100 - launch.fill_pct: the idle CUs' share of the machine */
    FP_GAIN_ROOF,         /* 100 x (1 - HBM % / practical ceiling): the bandwidth left to the ceiling */
    FP_GAIN_NARROW,       /* global-memory classes' gain x the narrow accesses' share of global accesses */
    FP_GAIN_TAIL,         /* 100 - tail efficiency: the idle slots of the rounds, bounded by the HBM floor */
    FP_GAIN_IMBALANCE,    /* 100 x (1 - mean / critical CU busy) x span ratio, <= HBM floor: every CU at the mean */
    FP_GAIN_BYTES,        /* a rate: % of kernel time per FP_RULES_BYTES_STEP_PCT % of the bytes removed; never ranked */
} fp_gain_model;

/* Where a rule's evidence instruction comes from. */
typedef enum fp_evidence_src {
    FP_EVID_CLASS = 0,    /* the hottest instruction of the rule's class (narrowed by prod) */
    FP_EVID_NARROW,       /* the most executed narrow global access (fp_signals.narrow_hot) */
    FP_EVID_NONE,         /* no instruction: the evidence is a launch / work-distribution fact */
} fp_evidence_src;

/* The acceptance test a re-capture must pass (checked by `flyprof diff`). */
typedef enum fp_accept_kind {
    FP_ACC_CLASS_EXPOSED_DROP, /* class exposed stall drops by >= pct % */
    FP_ACC_LINE_STALL_DROP,    /* stall at the hottest .py:line of the class drops by >= pct % */
    FP_ACC_SIGNAL_BELOW,       /* the primary signal falls below `target` */
    FP_ACC_SIGNAL_ABOVE,       /* the primary signal rises above `target` */
    FP_ACC_SIGNAL_DROP,        /* the rule's accept signal drops by >= pct % (written as signal_below) */
} fp_accept_kind;

#define FP_RULE_MAX_CONDS 3

typedef struct fp_rule {
    const char *id;
    const char *bubble_class;
    fp_rule_cond conds[FP_RULE_MAX_CONDS]; /* all must hold; conds[0] is the primary signal */
    unsigned gate;
    double priority;      /* tie-break between rules of equal gain (higher first) */
    const char *base_conf; /* "high" | "medium" | "low" */
    fp_gain_model gain;
    fp_prod_group prod;   /* FP_PROD_ANY, or evidence and gain from the class's waits on that producer group only */
    fp_accept_kind accept;
    double accept_value;  /* pct for *_DROP, target for SIGNAL_* */
    const char *knob;
    const char *api;      /* FlyDSL API */
    const char *change;   /* concrete change */
    const char *expected; /* expected effect */
    fp_evidence_src evid; /* FP_EVID_CLASS unless the row says otherwise */
    fp_sig_kind accept_sig; /* FP_ACC_SIGNAL_DROP: the signal measured (FP_SIG_NONE: conds[0]'s) */
} fp_rule;

extern const fp_rule fp_rules[];
extern const size_t fp_rules_count;

/* One fired rule. */
typedef struct fp_rec {
    const fp_rule *rule;
    double value;         /* primary signal value */
    bool value_fallback;  /* the primary came from the fallback condition */
    double gain_pct;      /* estimated upper-bound kernel gain, % */
    double confidence;    /* 0..1 after capture-quality lowering */
    const fp_sig_class *cls; /* the targeted class entry, or NULL */
    const fp_sig_hot *hot;   /* the evidence instruction, or NULL */
    int rank;             /* 1-based */
    const char *priority_label; /* "HIGH" | "MED" | "LOW": from gain x confidence, capped by the confidence label */
    bool noted;           /* gain below FP_RULES_MIN_GAIN_PCT (or a rate): seen, not a recommendation (rank 0) */
    bool capped;          /* the HBM floor (the distance to the practical ceiling) cut the gain */
    double cap_pct;       /* that distance, % (when capped) */
} fp_rec;

/* A recommendation must promise at least diff's noise floor on the kernel time
 * (FP_DIFF_NOISE_TIME_PCT, 2 %): a smaller best case cannot be told from noise
 * by the re-capture that accepts it. Below it a fired rule is "also seen". */
#define FP_RULES_MIN_GAIN_PCT FP_DIFF_NOISE_TIME_PCT

/* work_imbalance's gain (docs/rules.md): excess_pct = 100 x (1 - mean / critical CU
 * busy time), x span_ratio (traced wave span / kernel duration), <= floor_room (%). */
double fp_gain_imbalance(double excess_pct, double span_ratio, double floor_room);

/* Fewer bytes: time scales with the bytes at today's bandwidth, so removing STEP % of
 * them saves ~STEP % of the kernel time. The trace cannot say how many can go, so the
 * rule states this rate and is never ranked (docs/rules.md). */
#define FP_RULES_BYTES_STEP_PCT 10.0

/* The distance from hbm_pct (% of peak) to the practical ceiling (% of peak), % of
 * kernel time: 100 x (1 - hbm / ceiling), >= 0 (ceiling <= 0: 100 % of peak). */
double fp_gain_ceiling(double hbm_pct, double ceiling_pct);

/* A latency-hiding (or any same-bytes) gain under the HBM floor: min(gain, room), >= 0. */
double fp_gain_capped(double gain_pct, double room_pct);

/* At the ceiling: the kernel is at the roof and less than FP_RULES_MIN_GAIN_PCT is left
 * to the practical ceiling (a re-capture could not confirm more). Only there are the
 * latency-hiding rules switched off (docs/bound.md "The roof verdict"). */
bool fp_rules_at_ceiling(const fp_signals *s);

/* The most kernel time any change can save, % (false: HBM unmeasured): the distance
 * from the HBM figure to the arch's practical ceiling (at the roof: the roof's). */
bool fp_rules_hbm_room(const fp_signals *s, double *room);

/* The plan priority of a gain (% of kernel time) at a confidence (0..1). */
const char *fp_priority_label(double gain_pct, double confidence);

/* Evaluate every rule; *recs (malloc'd) gets the fired ones, ranked. */
void fp_rules_eval(const fp_signals *s, fp_rec **recs, size_t *n);

/* "high" | "medium" | "low" for a 0..1 confidence. */
const char *fp_conf_label(double c);

/* The recommendation as report.json data (report_doc.h fp_report_rec: rule,
 * bubble_class, rank, knob, api, change, expected, gain, confidence, evidence {...},
 * acceptance {...}); out is overwritten. */
struct fp_report_rec;
void fp_rec_to_doc(const fp_signals *s, const fp_rec *r, struct fp_report_rec *out);

/* The rule with this id, or NULL. */
const fp_rule *fp_rule_find(const char *id);
/* How a gain model estimates ("class exposed stall", "100 - launch.fill_pct (idle CUs)", ...). */
const char *fp_gain_model_text(fp_gain_model g);

/* Gate as text: "any" or "memory|latency". */
void fp_gate_text(unsigned gate, fp_sb *out);
/* A rule's firing condition as text ("class.vmcnt.stall_pct > 10 AND ..."). */
void fp_rule_cond_text(const fp_rule *r, fp_sb *out);
/* The whole table as markdown (bubble-knob-table.md) and as data (rules_doc.h, rounded
 * as written; free with fp_model_free(&fp_rules_doc_schema, d)). */
void fp_rules_markdown(fp_sb *out);
void fp_rules_doc_fill(fp_rules_doc *d);

#endif

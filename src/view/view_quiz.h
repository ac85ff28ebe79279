/* Predict-then-reveal (`idemsim view --predict`) as a state machine over the scenario's
 * questions and the shared clock. SDL-free: the window, the headless renderer and the tests
 * drive the same machine. The questions are borrowed from the Scenario, which outlives the
 * quiz. Invariant: the clock never runs past the next question's time while it is unasked,
 * and never moves at all while a question is on screen (asked or revealed). */
#ifndef IDEMSIM_VIEW_QUIZ_H
#define IDEMSIM_VIEW_QUIZ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "scenario.h"
#include "sim_time.h"
#include "view_pane.h"

/* A zeroed ViewQuiz is OVER, so a host that never calls view_quiz_init (the browser page)
 * runs as without --predict. */
typedef enum {
    VIEW_QUIZ_OVER,    /* every question asked (or none): the view runs as without --predict */
    VIEW_QUIZ_WAITING, /* the clock runs towards the next question */
    VIEW_QUIZ_ASKING,  /* clock held, question shown, its metrics hidden: the room votes */
    VIEW_QUIZ_REVEALED /* clock held, question shown, the counters and the answer shown */
} ViewQuizPhase;

/* What a press of space or enter did. */
typedef enum {
    VIEW_QUIZ_PRESS_UNUSED, /* no question on screen: the key does its usual job */
    VIEW_QUIZ_PRESS_REVEAL, /* ASKING -> REVEALED */
    VIEW_QUIZ_PRESS_RUN_ON  /* REVEALED -> WAITING (next question) or OVER */
} ViewQuizPress;

/* What the view can hide, one bit each; the counters in the panels' order. */
#define VIEW_QUIZ_HIDE_OK (1u << 0)
#define VIEW_QUIZ_HIDE_DOUBLE (1u << 1)
#define VIEW_QUIZ_HIDE_LOST (1u << 2)
#define VIEW_QUIZ_HIDE_PHANTOM (1u << 3)
#define VIEW_QUIZ_HIDE_BALANCES (1u << 4)      /* the charged-vs-expected verdicts and overshoot */
#define VIEW_QUIZ_HIDE_KEY_STORE (1u << 5)     /* the key-store panel's rows and counts */
#define VIEW_QUIZ_HIDE_MISMATCH (1u << 6)      /* the fifth counter, when it counts mismatches */
#define VIEW_QUIZ_HIDE_STALE (1u << 7)         /* the fifth counter, when it counts stale writes */
#define VIEW_QUIZ_HIDE_REFUNDED (1u << 8)      /* the fifth counter, when it counts refunds */
#define VIEW_QUIZ_HIDE_TWICE (1u << 9)         /* the fifth counter, when it counts orders twice */
#define VIEW_QUIZ_HIDE_LOST_UPDATES (1u << 10) /* the fifth counter, for debits written over */
#define VIEW_QUIZ_HIDE_DOUBLE_HOLDS (1u << 11) /* the fifth counter, for two holds on a card */

typedef struct {
    const Question *questions; /* borrowed */
    uint32_t question_count;
    uint32_t current; /* the question on screen, or the next one to ask */
    ViewQuizPhase phase;
    /* The answers: every question's revealed metrics at the end of each pane's run (when
     * the next question is asked, for all but the last), by session pane; learnt at the
     * first reveal. */
    bool answers_known;
    bool answered[MODE_COUNT][QUESTIONS_MAX][QUESTION_REVEAL_MAX];
    double answers[MODE_COUNT][QUESTIONS_MAX][QUESTION_REVEAL_MAX];
} ViewQuiz;

/* count 0 (no --predict, or no questions) gives a quiz that is OVER from the start. */
void view_quiz_init(ViewQuiz *quiz, const Question *questions, uint32_t count);
/* Back to the first question (the view restarted at time 0). */
void view_quiz_restart(ViewQuiz *quiz);

/* ------------------------------------------------------------------ the clock */

/* When the question index is asked, in simulated microseconds (at_ms rounded). */
SimTimeUs view_quiz_at_us(const ViewQuiz *quiz, uint32_t index);
/* When its answer is known: answer_at_ms, else the next question's time, else SIM_TIME_NEVER
 * (the end of the run). */
SimTimeUs view_quiz_answer_at_us(const ViewQuiz *quiz, uint32_t index);
/* The time the clock may run to when it wants target_us: no further than the next unasked
 * question; unchanged while WAITING for none or OVER. Callers hold the clock themselves
 * while view_quiz_holds_clock. */
SimTimeUs view_quiz_clock_limit(const ViewQuiz *quiz, SimTimeUs target_us);
/* A question is on screen: the clock must not move. */
bool view_quiz_holds_clock(const ViewQuiz *quiz);
/* Tells the quiz the clock reached now_us; finished: nothing is left to simulate, so a
 * question after the last event is asked now rather than never. Returns true when this
 * opened a question (ASKING). */
bool view_quiz_on_clock(ViewQuiz *quiz, SimTimeUs now_us, bool finished);

/* ------------------------------------------------------------------ keys */

/* Learns the answers of every question for these panes (once; view_quiz_restart forgets
 * them): each pane's scenario, mode and seed run in a world of their own to the end, or
 * to the next question's time for all but the last question, since the pane's own world
 * cannot run ahead and come back.
 * The figures are then those `idemsim run` prints. */
void view_quiz_learn_answers(ViewQuiz *quiz, ViewPane *const *panes, uint32_t pane_count);
/* The answer of the shown question's revealed metric reveal_index in session pane `pane`;
 * false when unknown (not learnt, or a metric the world cannot say). */
bool view_quiz_answer(const ViewQuiz *quiz, uint32_t pane, uint32_t reveal_index, double *value);
/* The words for a metric of scenario_metric_names: the row label of this scenario's report
 * table, else the name with its underscores as spaces, written to buffer. */
const char *view_quiz_metric_words(const Scenario *scenario, const char *metric, char *buffer,
                                   size_t size);

ViewQuizPress view_quiz_press(ViewQuiz *quiz);

/* ------------------------------------------------------------------ what to draw */

/* The question on screen (ASKING or REVEALED), or NULL. */
const Question *view_quiz_shown(const ViewQuiz *quiz);
/* VIEW_QUIZ_HIDE_* bits of what must not be seen now: the shown question's metrics while
 * ASKING, nothing otherwise. */
unsigned view_quiz_hidden(const ViewQuiz *quiz);
/* The VIEW_QUIZ_HIDE_* bits that a metric of scenario_metric_names shows on screen; 0 for a
 * metric the view draws no counter for (the question card lists those once revealed). */
unsigned view_quiz_hide_bits_of_metric(const char *metric);
/* A metric of scenario_metric_names in a pane now, as the view shows it: the four outcomes
 * and their money from the pane's live tally (so the card agrees with the counters), the
 * rest from the world's metrics. False for a name the metrics do not know. */
bool view_quiz_metric_value(const ViewPane *pane, const char *metric, double *value);

#endif

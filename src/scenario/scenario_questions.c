/* Questions: [{"at_ms": T, "ask": "...", "reveal": ["double", ...], "answer_at_ms": A}], the
 * predict-and-vote
 * moments of `idemsim view --predict`. Read after "duration_ms" (the top-level table's
 * order), so a question past the end of the scenario is reported. The reveal names are the
 * report's metric names, looked up in the same table as `expect`'s. */
#include <stdio.h>
#include <string.h>

#include "scenario_errors.h"
#include "scenario_schema.h"

/* ------------------------------------------------------------------ one question */

static void read_reveal(SchemaReader *reader, const cJSON *item, void *target)
{
    Question *question = target;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 1, QUESTION_REVEAL_MAX, "metric", "metrics",
                                &count)) {
        return;
    }
    const cJSON *element = item->child;
    for (unsigned i = 0; i < count; i++, element = element->next) {
        json_path_push_index(&reader->path, i);
        char quoted[SCENARIO_QUOTE_LEN_MAX + 8];
        int index = -1;
        if (schema_expect(reader, element, cJSON_String, "string")) {
            index = scenario_expect_metric_index(element->valuestring);
            if (index < 0)
                scenario_expect_unknown_metric(reader, element->valuestring);
        }
        for (uint32_t seen = 0; index >= 0 && seen < question->reveal_count; seen++) {
            if (question->reveal[seen] == index) {
                schema_error(reader, "duplicate metric %s",
                             scenario_errors_quote(quoted, sizeof quoted, element->valuestring));
                index = -1;
            }
        }
        if (index >= 0)
            question->reveal[question->reveal_count++] = (uint16_t)index;
        json_path_pop(&reader->path);
    }
}

static void write_reveal(SchemaWriter *writer, const void *target, cJSON *object, const char *key)
{
    const Question *question = target;
    cJSON *metrics = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; metrics != NULL && i < question->reveal_count; i++)
        schema_write_string(writer, metrics, NULL, scenario_metric_names[question->reveal[i]]);
}

/* Written back only when the file gave it: its absence means "the next question, or the end". */
static void read_answer_at(SchemaReader *reader, const cJSON *item, void *target)
{
    Question *question = target;
    const SchemaRange range = RANGE_MS;
    question->has_answer_at = schema_read_number(reader, item, &range, &question->answer_at_ms);
}

static void write_answer_at(SchemaWriter *writer, const void *target, cJSON *object,
                            const char *key)
{
    const Question *question = target;
    if (question->has_answer_at)
        schema_write_number(writer, object, key, question->answer_at_ms);
}

/* clang-format off */
static const SchemaField question_fields[] = {
    {.key = "at_ms", .type = SCHEMA_NUMBER, .offset = SCHEMA_MEMBER(Question, at_ms, double),
     .range = RANGE_MS, .required = true},
    {.key = "ask", .type = SCHEMA_TEXT, .offset = SCHEMA_MEMBER(Question, ask, char *),
     .size = sizeof(((Question *)0)->ask), .range = {1.0, 0.0, false, false, false},
     .required = true},
    {.key = "reveal", .type = SCHEMA_CUSTOM, .offset = 0, .read = read_reveal,
     .write = write_reveal, .required = true},
    {.key = "answer_at_ms", .type = SCHEMA_CUSTOM, .offset = 0, .read = read_answer_at,
     .write = write_answer_at},
};
/* clang-format on */
const SchemaObject scenario_questions_schema = {.name = "questions[]",
                                                SCHEMA_FIELDS(question_fields)};

/* ------------------------------------------------------------------ the list */

/* A question must come after the one before it (the view asks them in order, and two at
 * the same moment would be one card) and within the scenario's duration (when nothing is
 * left to happen, there is nothing to predict). The reader's path is the question's. */
static void check_time(SchemaReader *reader, const cJSON *element, double at_ms,
                       const double *previous_ms, double duration_ms)
{
    char got[32];
    char bound[32];
    schema_describe_number(reader, schema_member(element, "at_ms"), got, sizeof got);
    if (previous_ms != NULL && at_ms <= *previous_ms) {
        schema_format_number(*previous_ms, bound, sizeof bound);
        schema_error_at(reader, "at_ms",
                        "expected number > %s, the previous question's at_ms (questions in "
                        "time order) (got %s)",
                        bound, got);
    } else if (at_ms > duration_ms) {
        schema_format_number(duration_ms, bound, sizeof bound);
        schema_error_at(reader, "at_ms", "expected number <= duration_ms (%s) (got %s)", bound,
                        got);
    }
}

/* An answer is known at or after its question (else the reveal would show the room less
 * than it already saw) and within the run. */
static void check_answer_time(SchemaReader *reader, const cJSON *element, const Question *question,
                              double duration_ms)
{
    if (!question->has_answer_at)
        return;
    char got[32], bound[32];
    schema_describe_number(reader, schema_member(element, "answer_at_ms"), got, sizeof got);
    if (question->answer_at_ms < question->at_ms) {
        schema_format_number(question->at_ms, bound, sizeof bound);
        schema_error_at(reader, "answer_at_ms",
                        "expected number >= %s, the question's at_ms (got %s)", bound, got);
    } else if (question->answer_at_ms > duration_ms) {
        schema_format_number(duration_ms, bound, sizeof bound);
        schema_error_at(reader, "answer_at_ms", "expected number <= duration_ms (%s) (got %s)",
                        bound, got);
    }
}

void scenario_questions_read(SchemaReader *reader, const cJSON *item, void *target)
{
    Scenario *scenario = target;
    unsigned count = 0;
    if (!schema_read_array_size(reader, item, 1, QUESTIONS_MAX, "question", "questions", &count)) {
        return;
    }
    const cJSON *element = item->child;
    double previous_ms = 0;
    bool has_previous = false;
    for (unsigned i = 0; i < count && !schema_full(reader); i++, element = element->next) {
        Question *question = &scenario->questions[i];
        memset(question, 0, sizeof *question);
        question->at_ms = -1; /* stays negative when at_ms is missing or refused */
        json_path_push_index(&reader->path, i);
        schema_read_object(reader, element, &scenario_questions_schema, question);
        if (question->at_ms >= 0) { /* read and in range: its place can be checked */
            check_time(reader, element, question->at_ms, has_previous ? &previous_ms : NULL,
                       scenario->duration_ms);
            previous_ms = question->at_ms;
            has_previous = true;
            check_answer_time(reader, element, question, scenario->duration_ms);
        }
        json_path_pop(&reader->path);
    }
    scenario->question_count = count;
}

void scenario_questions_write(SchemaWriter *writer, const void *target, cJSON *object,
                              const char *key)
{
    const Scenario *scenario = target;
    if (scenario->question_count == 0)
        return; /* an empty list is refused: a scenario without questions has no key */
    cJSON *questions = schema_write_item(writer, object, key, cJSON_CreateArray());
    for (uint32_t i = 0; questions != NULL && i < scenario->question_count; i++) {
        cJSON *written = schema_write_item(writer, questions, NULL, cJSON_CreateObject());
        if (written != NULL)
            schema_write_object(writer, &scenario_questions_schema, &scenario->questions[i],
                                written);
    }
}

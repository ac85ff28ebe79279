/* --labels-json: every string the last frame drew inside a pane's sequence diagram, with its
 * box and type size, so a test (or an instructor preparing a room) can check from outside
 * that the diagram's words are large enough and never overlap, whatever the renderer; and
 * the words of each pane's counters, balances and narration, and of the question card, so
 * what the screen says can be held against the run's report. */
#include <inttypes.h>
#include <stdio.h>

#include "report.h"
#include "view_app.h"

static bool inside(ViewRect box, ViewRect area)
{
    return box.x >= area.x && box.y >= area.y && box.x + box.w <= area.x + area.w &&
           box.y + box.h <= area.y + area.h;
}

static void write_rect(FILE *stream, ViewRect r)
{
    fprintf(stream, "{\"x\": %d, \"y\": %d, \"w\": %d, \"h\": %d", r.x, r.y, r.w, r.h);
}

/* The strings logged in [from, to) whose box lies inside area, as a JSON array. */
static void write_texts(FILE *stream, const ViewCanvas *canvas, ViewRect area, int from, int to)
{
    fputc('[', stream);
    int written = 0;
    for (int i = from; i < to; i++) {
        const ViewTextLogged *text = &canvas->logged[i];
        if (!inside(text->box, area))
            continue;
        fprintf(stream, "%s\n  ", written++ ? "," : "");
        write_rect(stream, text->box);
        fprintf(stream, ", \"px\": %d, \"clipped\": %s, \"text\": ", text->font_px,
                text->clipped ? "true" : "false");
        report_write_json_string(stream, text->text);
        fputc('}', stream);
    }
    fputc(']', stream);
}

/* A pane's panels as drawn: the words of each counter (label, number, subline), of the
 * balances (their verdicts), of the key store's box (or a storm's rates) and of the narration line
 * (the verdict once finished), so a test can hold them against `idemsim run --json`. The question
 * card is drawn over the panels, so their lists stop where it starts. */
static void write_panels(FILE *stream, const ViewApp *app, int column, int panels_end)
{
    const ViewPaneLayout *box = &app->frame.layout.panes[column];
    const ViewCanvas *canvas = &app->canvas;
    const ViewPane *pane = app->session.panes[view_frame_pane_of_column(&app->frame, column)];
    fprintf(stream, ", \"mode\": \"%s\", \"done\": %s, \"header\": ", mode_name(pane->mode),
            pane->tally.done ? "true" : "false");
    write_texts(stream, canvas, box->header, 0, panels_end);
    fprintf(stream, ", \"counters\": [");
    for (int c = 0; c < box->counter_count; c++) {
        fprintf(stream, "%s\n  ", c ? "," : "");
        write_texts(stream, canvas, box->counters[c], 0, panels_end);
    }
    static const char *const extra_names[] = {"null",
                                              "\"mismatch\"",
                                              "\"stale_overwrites\"",
                                              "\"orders_fulfilled_twice\"",
                                              "\"lost_updates\"",
                                              "\"double_holds\"",
                                              "\"refunded\"",
                                              "\"declined\""};
    fprintf(stream,
            "], \"fifth_counter\": %s, \"balances\": ", extra_names[app->frame.extra_counter]);
    write_texts(stream, canvas, box->balances, 0, panels_end);
    fprintf(stream, ", \"keys\": "); /* the key store, or a storm's rate strip */
    write_texts(stream, canvas, box->keys, 0, panels_end);
    fprintf(stream, ", \"narration\": ");
    write_texts(stream, canvas, box->narration, 0, panels_end);
}

static void write_labels(FILE *stream, const ViewApp *app)
{
    const ViewLayout *layout = &app->frame.layout;
    const ViewCanvas *canvas = &app->canvas;
    int card_from = app->frame.card_logged_from;
    int panels_end = card_from >= 0 ? card_from : canvas->logged_count;
    /* clock_stopped: every world has finished, so the frame is the run's last */
    fprintf(stream,
            "{\"width\": %d, \"height\": %d, \"projector\": %s, \"clock_stopped\": %s, "
            "\"panes\": [",
            layout->width, layout->height, layout->projector ? "true" : "false",
            view_session_finished(&app->session) ? "true" : "false");
    for (int column = 0; column < layout->pane_count; column++) {
        ViewRect sequence = layout->panes[column].sequence;
        fprintf(stream, "%s\n {\"sequence\": ", column ? "," : "");
        write_rect(stream, sequence);
        fprintf(stream, "}, \"texts\": ");
        write_texts(stream, canvas, sequence, 0, panels_end);
        write_panels(stream, app, column, panels_end);
        fprintf(stream, "}");
    }
    fprintf(stream, "\n], \"card\": ");
    ViewRect everywhere = {0, 0, layout->width, layout->height};
    if (card_from >= 0)
        write_texts(stream, canvas, everywhere, card_from, canvas->logged_count);
    else
        fprintf(stream, "null");
    fprintf(stream, "}\n");
}

bool view_labels_save(const ViewApp *app, const char *path)
{
    OutputFile file;
    char error[OUTPUT_PATH_MAX + 256];
    if (!output_file_open(&file, path, error, sizeof error)) {
        fprintf(stderr, "idemsim view: %s\n", error);
        return false;
    }
    write_labels(file.stream, app);
    if (!output_file_commit(&file, error, sizeof error)) {
        fprintf(stderr, "idemsim view: %s\n", error);
        return false;
    }
    return true;
}

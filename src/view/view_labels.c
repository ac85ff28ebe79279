/* --labels-json: every string the last frame drew inside a pane's sequence diagram, with its
 * box and type size, so a test (or an instructor preparing a room) can check from outside
 * that the diagram's words are large enough and never overlap, whatever the renderer. */
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

static void write_labels(FILE *stream, const ViewApp *app)
{
    const ViewLayout *layout = &app->frame.layout;
    const ViewCanvas *canvas = &app->canvas;
    fprintf(stream, "{\"width\": %d, \"height\": %d, \"projector\": %s, \"panes\": [",
            layout->width, layout->height, layout->projector ? "true" : "false");
    for (int column = 0; column < layout->pane_count; column++) {
        ViewRect sequence = layout->panes[column].sequence;
        fprintf(stream, "%s\n {\"sequence\": ", column ? "," : "");
        write_rect(stream, sequence);
        fprintf(stream, "}, \"texts\": [");
        int written = 0;
        for (int i = 0; i < canvas->logged_count; i++) {
            const ViewTextLogged *text = &canvas->logged[i];
            if (!inside(text->box, sequence))
                continue;
            fprintf(stream, "%s\n  ", written++ ? "," : "");
            write_rect(stream, text->box);
            fprintf(stream, ", \"px\": %d, \"clipped\": %s, \"text\": ", text->font_px,
                    text->clipped ? "true" : "false");
            report_write_json_string(stream, text->text);
            fputc('}', stream);
        }
        fprintf(stream, "]}");
    }
    fprintf(stream, "\n]}\n");
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

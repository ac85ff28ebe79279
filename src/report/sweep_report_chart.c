/* The sweep's SVG chart: small multiples, one panel per metric (and per value of the
 * second axis), one line per mode with 95% confidence bars. */
#include "sweep_report.h"
#include "sweep_report_internal.h"
#include "xml_text.h"

#include <math.h>
#include <string.h>

#define SVG_FONT "DejaVu Sans, Helvetica, Arial, sans-serif"
#define SVG_HEADER_HEIGHT 104.0
#define SVG_MARGIN 24.0

typedef struct {
    double x, y, width, height; /* the plotting area, in SVG pixels */
    double x_min, x_max, y_min, y_max;
} Frame;

typedef struct {
    double first, step;
    int count;
} Ticks;

/* Okabe–Ito colours, told apart by colour-blind readers and on a projector; a marker shape
 * per mode too, so a greyscale print still works. */
static const char *const mode_colors[MODE_COUNT] = {"#0072B2", "#D55E00", "#009E73"};

static const char *metric_meaning(const char *metric)
{
    static const char *const meanings[][2] = {
        {"double", "operations charged twice or more"},
        {"lost", "operations never charged"},
        {"phantom", "charged once, client told otherwise"},
        {"ok", "charged once, client told success"},
        {"mismatch", "answered with another request's response"},
        {"double_amount", "money charged twice (minor units)"},
        {"lost_amount", "money never charged (minor units)"},
        {"client_unknown", "operations the client gave up on"},
        {"executions", "handler runs at the server"},
        {"attempts", "requests sent by clients"},
    };
    for (size_t i = 0; i < sizeof meanings / sizeof meanings[0]; i++) {
        if (strcmp(metric, meanings[i][0]) == 0)
            return meanings[i][1];
    }
    return NULL;
}

/* About five ticks at 1, 2 or 5 times a power of ten, inside [low, high]. */
static Ticks nice_ticks(double low, double high)
{
    double span = high - low;
    if (!(span > 0))
        return (Ticks){.first = low, .step = 1, .count = 1};
    double raw = span / 5.0;
    double power = pow(10.0, floor(log10(raw)));
    double step = power;
    if (raw / power > 5)
        step = 10 * power;
    else if (raw / power > 2)
        step = 5 * power;
    else if (raw / power > 1)
        step = 2 * power;
    Ticks ticks = {.first = ceil(low / step - 1e-9) * step, .step = step};
    ticks.count = (int)floor((high - ticks.first) / step + 1e-9) + 1;
    return ticks;
}

/* "0.15", "250", "4000", "20k", "1.5M": as few digits as the tick step needs. */
static void format_tick(char *buffer, size_t size, double value, double step)
{
    const char *suffix = "";
    double scale = 1;
    if (fabs(step) >= 1e6 - 1e-6) {
        scale = 1e6;
        suffix = "M";
    } else if (fabs(step) >= 1e4 - 1e-9) { /* 2000, 4000 read better than 2k, 4k */
        scale = 1e3;
        suffix = "k";
    }
    double scaled_step = step / scale;
    int decimals = scaled_step >= 1 ? 0 : (int)ceil(-log10(scaled_step) - 1e-9);
    double scaled = value / scale;
    if (fabs(scaled) < scaled_step * 1e-6)
        snprintf(buffer, size, "0"); /* not "0.0", "0k" or "-0" */
    else
        snprintf(buffer, size, "%.*f%s", decimals, scaled, suffix);
}

static double to_x(const Frame *frame, double x)
{
    return frame->x + (x - frame->x_min) / (frame->x_max - frame->x_min) * frame->width;
}

static double to_y(const Frame *frame, double y)
{
    double fraction = (y - frame->y_min) / (frame->y_max - frame->y_min);
    return frame->y + frame->height - fraction * frame->height;
}

/* Gridlines, tick labels and the two axis labels of one panel. */
static void write_axes(FILE *stream, const Frame *frame, const char *x_label, const char *y_label)
{
    Ticks y_ticks = nice_ticks(frame->y_min, frame->y_max);
    for (int i = 0; i < y_ticks.count; i++) {
        double value = y_ticks.first + i * y_ticks.step;
        char label[32];
        format_tick(label, sizeof label, value, y_ticks.step);
        double y = to_y(frame, value);
        fprintf(stream,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e3e3e3\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" text-anchor=\"end\" "
                "fill=\"#444\">%s</text>\n",
                frame->x, y, frame->x + frame->width, y, frame->x - 8, y + 5, label);
    }
    Ticks x_ticks = nice_ticks(frame->x_min, frame->x_max);
    double bottom = frame->y + frame->height;
    for (int i = 0; i < x_ticks.count; i++) {
        double value = x_ticks.first + i * x_ticks.step;
        char label[32];
        format_tick(label, sizeof label, value, x_ticks.step);
        double x = to_x(frame, value);
        fprintf(stream,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n"
                "<text x=\"%.1f\" y=\"%.1f\" font-size=\"14\" text-anchor=\"middle\" "
                "fill=\"#444\">%s</text>\n",
                x, bottom, x, bottom + 5, x, bottom + 21, label);
    }
    fprintf(stream,
            "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"/>\n"
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"15\" text-anchor=\"middle\" fill=\"#222\">",
            frame->x, bottom, frame->x + frame->width, bottom, frame->x + frame->width / 2,
            bottom + 42);
    xml_text_write(stream, x_label);
    fprintf(stream,
            "</text>\n<text transform=\"translate(%.1f %.1f) rotate(-90)\" font-size=\"15\" "
            "text-anchor=\"middle\" fill=\"#222\">",
            frame->x - 62, frame->y + frame->height / 2);
    xml_text_write(stream, y_label);
    fputs("</text>\n", stream);
}

/* A marker of radius r (about half its width). */
static void write_marker(FILE *stream, uint32_t shape, double x, double y, double r,
                         const char *color)
{
    switch (shape % MODE_COUNT) {
    case 0:
        fprintf(stream, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%.1f\" fill=\"%s\"/>\n", x, y, r,
                color);
        break;
    case 1:
        fprintf(stream,
                "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"%s\"/>\n",
                x - 0.9 * r, y - 0.9 * r, 1.8 * r, 1.8 * r, color);
        break;
    default:
        fprintf(stream, "<path d=\"M%.1f %.1fL%.1f %.1fL%.1f %.1fZ\" fill=\"%s\"/>\n", x,
                y - 1.2 * r, x + 1.2 * r, y + 0.9 * r, x - 1.2 * r, y + 0.9 * r, color);
        break;
    }
}

/* The point of the grid with x index i and second-axis index column. */
static uint32_t grid_point(const SweepResults *results, uint32_t i, uint32_t column)
{
    return results->axis_count == 2 ? i * results->axes[1].count + column : i;
}

/* One line per mode with error bars; modes are nudged apart so their bars don't overlap. */
static void write_series(FILE *stream, const SweepResults *results, const Frame *frame,
                         uint32_t metric, uint32_t column)
{
    const SweepAxis *axis = &results->axes[0];
    /* Markers and the nudge shrink as the points crowd, so 50 points stay legible. */
    double spacing = frame->width / (axis->count + 1.0);
    double radius = fmax(2.5, fmin(5.5, spacing / 3.5));
    for (uint32_t m = 0; m < results->mode_count; m++) {
        const char *color = mode_colors[results->modes[m]];
        double nudge = ((double)m - (results->mode_count - 1) / 2.0) * fmin(5.0, spacing / 8);
        fprintf(stream,
                "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2.5\" "
                "stroke-linejoin=\"round\" points=\"",
                color);
        for (uint32_t i = 0; i < axis->count; i++) {
            SweepSummary s =
                sweep_report_summarize(results, grid_point(results, i, column), m, metric);
            fprintf(stream, "%s%.1f,%.1f", i ? " " : "",
                    to_x(frame, sweep_report_axis_value(axis, i)) + nudge, to_y(frame, s.mean));
        }
        fputs("\"/>\n", stream);
        for (uint32_t i = 0; i < axis->count; i++) {
            SweepSummary s =
                sweep_report_summarize(results, grid_point(results, i, column), m, metric);
            double x = to_x(frame, sweep_report_axis_value(axis, i)) + nudge;
            if (s.ci95 > 0) {
                double cap = radius * 0.75;
                double top = to_y(frame, fmin(s.mean + s.ci95, frame->y_max));
                double low = to_y(frame, fmax(s.mean - s.ci95, frame->y_min));
                fprintf(stream,
                        "<path d=\"M%.1f %.1fV%.1fM%.1f %.1fH%.1fM%.1f %.1fH%.1f\" "
                        "stroke=\"%s\" stroke-width=\"1.6\"/>\n",
                        x, top, low, x - cap, top, x + cap, x - cap, low, x + cap, color);
            }
            write_marker(stream, results->modes[m], x, to_y(frame, s.mean), radius, color);
        }
    }
}

/* The y range of a metric across every panel of its row, bars included, with 0 in it. A
 * metric that is never negative (a count) starts at 0: its bars are clipped there rather
 * than suggest negative counts. */
static void metric_range(const SweepResults *results, uint32_t metric, double *low, double *high)
{
    double lowest = 0, bar_low = 0;
    *high = 0;
    uint32_t points = sweep_report_point_count(results);
    for (uint32_t p = 0; p < points; p++) {
        for (uint32_t m = 0; m < results->mode_count; m++) {
            SweepSummary s = sweep_report_summarize(results, p, m, metric);
            lowest = fmin(lowest, s.min);
            bar_low = fmin(bar_low, s.mean - s.ci95);
            *high = fmax(*high, s.mean + s.ci95);
        }
    }
    *low = lowest < 0 ? bar_low : 0;
    if (*high - *low <= 0)
        *high = *low + 1;
    Ticks ticks = nice_ticks(*low, *high);
    /* End the axis on a tick above the data, so the top gridline frames it. */
    double top = ticks.first + (ticks.count - 1) * ticks.step;
    if (top < *high - 1e-12 * fabs(*high))
        top += ticks.step;
    *high = top;
    if (*low < 0)
        *low = floor(*low / ticks.step - 1e-9) * ticks.step;
}

/* Cuts text to at most fit characters, ending in "...". */
static void cut_to_fit(char *text, size_t size, double fit)
{
    size_t limit = fit < 4 ? 4 : (size_t)fit;
    if (strlen(text) > limit && limit < size)
        snprintf(text + limit - 3, size - (limit - 3), "...");
}

static void write_panel(FILE *stream, const SweepResults *results, const Frame *frame,
                        uint32_t metric, uint32_t column)
{
    char title[SWEEP_PATH_LEN_MAX + 120];
    const char *meaning = metric_meaning(results->metrics[metric]);
    if (results->axis_count == 2) {
        char label[SWEEP_LABEL_LEN_MAX];
        sweep_report_axis_label(&results->axes[1], column, label, sizeof label);
        snprintf(title, sizeof title, "%.127s = %.31s", results->axes[1].path, label);
    } else if (meaning != NULL) {
        snprintf(title, sizeof title, "%s: %s", results->metrics[metric], meaning);
    } else {
        snprintf(title, sizeof title, "%s", results->metrics[metric]);
    }
    cut_to_fit(title, sizeof title, (frame->width + 60) / 10.8);
    fprintf(stream,
            "<text x=\"%.1f\" y=\"%.1f\" font-size=\"18\" font-weight=\"bold\" "
            "fill=\"#222\">",
            frame->x, frame->y - 14);
    xml_text_write(stream, title);
    fputs("</text>\n", stream);
    write_axes(stream, frame, results->axes[0].path, results->metrics[metric]);
    write_series(stream, results, frame, metric, column);
}

static double legend_width(const SweepResults *results)
{
    double width = 0;
    for (uint32_t m = 0; m < results->mode_count; m++)
        width += 56 + 9.5 * (double)strlen(mode_name(results->modes[m]));
    return width;
}

/* Right-aligned at right, on the statistics line. */
static void write_legend(FILE *stream, const SweepResults *results, double right, double y)
{
    double x = right - legend_width(results);
    for (uint32_t m = 0; m < results->mode_count; m++) {
        const char *name = mode_name(results->modes[m]);
        const char *color = mode_colors[results->modes[m]];
        fprintf(stream,
                "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
                "stroke-width=\"2.5\"/>\n",
                x, y - 6, x + 28, y - 6, color);
        write_marker(stream, results->modes[m], x + 14, y - 6, 5.5, color);
        fprintf(stream, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"17\" fill=\"#222\">%s</text>\n",
                x + 36, y, name);
        x += 56 + 9.5 * (double)strlen(name);
    }
}

/* Title; then the statistics line with the fixed overrides, and the legend beside it. */
static void write_header(FILE *stream, const SweepResults *results, double width)
{
    char title[NAME_LEN_MAX + TITLE_LEN_MAX + 8];
    snprintf(title, sizeof title, "%s%s%s", results->scenario, results->title[0] ? ": " : "",
             results->title);
    cut_to_fit(title, sizeof title, (width - 2 * SVG_MARGIN) / 14.5);
    fprintf(stream,
            "<text x=\"%.1f\" y=\"40\" font-size=\"24\" font-weight=\"bold\" "
            "fill=\"#111\">",
            SVG_MARGIN);
    xml_text_write(stream, title);
    fputs("</text>\n", stream);
    char line[SWEEP_OVERRIDE_LEN_MAX * 4];
    if (results->seed_count > 1)
        snprintf(line, sizeof line, "mean of %u seeds per point; bars: 95%% confidence interval",
                 results->seed_count);
    else
        snprintf(line, sizeof line, "one seed per point (no confidence interval)");
    for (uint32_t i = 0; i < results->override_count; i++) {
        size_t used = strlen(line);
        snprintf(line + used, sizeof line - used, "%s%s", i == 0 ? "; with " : ", ",
                 results->overrides[i]);
    }
    cut_to_fit(line, sizeof line, (width - 2 * SVG_MARGIN - legend_width(results) - 24) / 8.6);
    fprintf(stream, "<text x=\"%.1f\" y=\"76\" font-size=\"16\" fill=\"#444\">", SVG_MARGIN);
    xml_text_write(stream, line);
    fputs("</text>\n", stream);
    write_legend(stream, results, width - SVG_MARGIN, 76);
}

bool sweep_report_write_svg(FILE *stream, const SweepResults *results)
{
    /* Small multiples: rows are metrics with a shared y scale, columns the values of the
     * second axis. One axis: the metric panels wrap into two or three columns. */
    uint32_t panels =
        results->metric_count * (results->axis_count == 2 ? results->axes[1].count : 1);
    uint32_t columns = results->axis_count == 2 ? results->axes[1].count
                       : panels == 1            ? 1
                       : panels <= 4            ? 2
                                                : 3;
    uint32_t rows = (panels + columns - 1) / columns;
    double panel_width = columns == 1 ? 1232 : columns == 2 ? 616 : 440;
    double panel_height = rows == 1 ? (columns == 1 ? 592 : 460) : 330;
    double width = panel_width * columns + 2 * SVG_MARGIN;
    double height = SVG_HEADER_HEIGHT + panel_height * rows + SVG_MARGIN;
    fprintf(stream,
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" "
            "viewBox=\"0 0 %.0f %.0f\" font-family=\"%s\">\n"
            "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
            width, height, width, height, SVG_FONT);
    write_header(stream, results, width);
    const SweepAxis *axis = &results->axes[0];
    double x_first = sweep_report_axis_value(axis, 0);
    double x_last = sweep_report_axis_value(axis, axis->count - 1);
    double pad = axis->count > 1 ? (x_last - x_first) * 0.04 : fmax(fabs(x_first) * 0.1, 1);
    for (uint32_t panel = 0; panel < panels; panel++) {
        uint32_t metric = results->axis_count == 2 ? panel / columns : panel;
        uint32_t column = results->axis_count == 2 ? panel % columns : 0;
        Frame frame = {
            .x = SVG_MARGIN + (panel % columns) * panel_width + 84,
            .y = SVG_HEADER_HEIGHT + (panel / columns) * panel_height + 40,
            .width = panel_width - 84 - 28,
            .height = panel_height - 40 - 64,
            .x_min = x_first - pad,
            .x_max = x_last + pad,
        };
        metric_range(results, metric, &frame.y_min, &frame.y_max);
        write_panel(stream, results, &frame, metric, column);
    }
    fputs("</svg>\n", stream);
    return !ferror(stream);
}

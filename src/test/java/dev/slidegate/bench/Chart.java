package dev.slidegate.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;

/** A horizontal bar chart as a self-contained SVG, written by the benchmark commands for the README. */
final class Chart {

    /** One bar: its label, value and whether it is Slidegate (drawn in the accent colour). */
    record Bar(String label, double value, boolean ours) {
    }

    /** One group of bars under a heading. */
    record Group(String heading, List<Bar> bars) {
    }

    private Chart() {
    }

    static void write(Path file, String title, String unit, List<Group> groups) {
        int width = 760;
        int labelWidth = 190;
        int barHeight = 18;
        int y = 40;
        double max = groups.stream().flatMap(g -> g.bars().stream()).mapToDouble(Bar::value).max().orElse(1);
        StringBuilder body = new StringBuilder();
        for (Group g : groups) {
            body.append(text(10, y + 14, g.heading(), "bold"));
            y += 24;
            for (Bar b : g.bars()) {
                double w = (width - labelWidth - 90) * b.value() / max;
                body.append(text(20, y + 13, b.label(), "normal"));
                body.append(String.format(Locale.ROOT, "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"%d\" fill=\"%s\"/>%n",
                        labelWidth, y, Math.max(w, 1), barHeight - 4, b.ours() ? "#d9480f" : "#868e96"));
                body.append(text((int) (labelWidth + w + 6), y + 12, String.format(Locale.ROOT, "%.1f %s", b.value(), unit),
                        "normal"));
                y += barHeight;
            }
            y += 10;
        }
        String svg = String.format(Locale.ROOT, """
                <svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">
                <rect width="100%%" height="100%%" fill="white"/>
                %s%s</svg>
                """, width, y + 10, text(10, 22, title, "bold"), body);
        try {
            Files.createDirectories(file.toAbsolutePath().getParent());
            Files.writeString(file, svg);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String text(int x, int y, String s, String weight) {
        String escaped = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;");
        return String.format(Locale.ROOT, "<text x=\"%d\" y=\"%d\" font-weight=\"%s\">%s</text>%n", x, y, weight, escaped);
    }
}

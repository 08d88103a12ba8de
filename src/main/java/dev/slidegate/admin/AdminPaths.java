package dev.slidegate.admin;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Deque;
import java.util.List;

/** The admin's paths as sent and as meant: disguised roots, and the decoded segments below the root. */
final class AdminPaths {

    private AdminPaths() {
    }

    /** Whether {@code raw}, a path as sent, is not spelled {@code root} or {@code root/…} but means it once decoded. */
    static boolean disguised(String raw, String root) {
        if (raw == null || raw.equals(root) || raw.startsWith(root + "/") || (raw.indexOf('%') < 0 && raw.indexOf('.') < 0
                && raw.indexOf('\\') < 0 && raw.indexOf("//") < 0)) {
            return false;
        }
        String decoded;
        try {
            decoded = URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            return false; // not a path any handler finds a file for
        }
        Deque<String> segments = normalized(decoded.replace('\\', '/'));
        List<String> rootSegments = List.copyOf(normalized(root));
        if (segments.size() < rootSegments.size()) {
            return false;
        }
        return new ArrayList<>(segments).subList(0, rootSegments.size()).equals(rootSegments);
    }

    private static Deque<String> normalized(String path) {
        Deque<String> segments = new ArrayDeque<>();
        for (String segment : path.split("/")) {
            if (segment.equals("..")) {
                segments.pollLast();
            } else if (!segment.isEmpty() && !segment.equals(".")) {
                segments.addLast(segment);
            }
        }
        return segments;
    }

    /** The path below the root as decoded segments ({@code %2F} within a segment stays part of it). */
    static List<String> segments(String below) {
        if (below.isEmpty() || below.equals("/")) {
            return List.of();
        }
        List<String> decoded = new ArrayList<>();
        for (String raw : Arrays.asList(below.substring(1).split("/", -1))) {
            decoded.add(URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8));
        }
        return decoded;
    }
}

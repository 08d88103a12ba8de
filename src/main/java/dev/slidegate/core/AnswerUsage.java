package dev.slidegate.core;

/**
 * The token usage an LLM provider's answer reports, read from the answer's bytes as they pass (issue 60): a whole JSON
 * body, or a stream of server-sent events whose {@code data} is JSON. Both wire formats most services speak are read
 * without being told which: OpenAI-compatible ({@code usage.prompt_tokens} or {@code input_tokens},
 * {@code completion_tokens} or {@code output_tokens}, {@code total_tokens}; streamed, the chunk that carries
 * {@code usage}, or a Responses stream's {@code response.usage}) and Anthropic-compatible ({@code usage.input_tokens}
 * with {@code cache_creation_input_tokens} and {@code cache_read_input_tokens}, {@code output_tokens}; streamed,
 * {@code message_start}'s {@code message.usage} and {@code message_delta}'s {@code usage}).
 *
 * <p>
 * Memory is bounded whatever the answer: nothing is buffered but a field name (at most {@value #MAX_NAME} bytes) and
 * the names of the objects the reader is in (at most {@value #MAX_DEPTH} deep); strings are skipped as they pass, and
 * numbers read as they pass. An answer is never failed by what it says: what cannot be read is not read.
 *
 * <p>
 * What an answer may lie about is read so that a lie never lifts a budget (docs/strategies.md): a count that is
 * negative, fractional or not a number is no count; one above {@link DecisionStore#MAX_SETTLED} is that; an answer that
 * reports usage several times is read at the most it reported for each of input and output (a stream's later reports
 * are running totals); a total below input plus output is read as input plus output. An answer cut short reports what
 * had passed; an answer that reports nothing is {@link #tokens()} {@code null}.
 */
public final class AnswerUsage {

    /** How the answer is framed. */
    public enum Framing {
        /** One JSON document. */
        JSON,
        /**
         * {@code text/event-stream}: each event's {@code data} lines are one JSON document ({@code [DONE]} and others skipped).
         */
        SSE,
        /**
         * A stream's items as a REST client or an endpoint hands them over ({@link #item}): when the first item that is not
         * blank starts with <code>{</code>, each item is one JSON document (an event's data, a line of JSON Lines);
         * otherwise the items are the pieces of a {@code text/event-stream}, read as {@link #SSE}.
         */
        ITEMS
    }

    /**
     * What an answer reported, in tokens: each part -1 when it reported none.
     *
     * @param input tokens read (prompt, cached included)
     * @param output tokens written
     * @param total the total reported, or -1
     */
    public record Tokens(long input, long output, long total) {

        /** The usage to charge: the total, never less than input plus output; -1 when nothing was reported. */
        public long charged() {
            long parts = Math.max(0, input) + Math.max(0, output);
            long all = Math.max(total, parts);
            return input < 0 && output < 0 && total < 0 ? -1 : Math.min(all, DecisionStore.MAX_SETTLED);
        }
    }

    static final int MAX_NAME = 64;
    static final int MAX_DEPTH = 32;
    /** The longest SSE field name read ({@code data}, {@code event}...); a longer one's line is skipped. */
    private static final int MAX_FIELD = 16;

    private final Framing framing;

    // the JSON document being read
    private final Json json = new Json();

    // SSE: where in a line the reader is
    private static final int LINE_START = 0;
    private static final int FIELD = 1;
    private static final int AFTER_COLON = 2;
    private static final int DATA = 3;
    private static final int SKIP_LINE = 4;
    private int line = LINE_START;
    private final byte[] field = new byte[MAX_FIELD];
    private int fieldLength;
    private boolean lastWasCr;
    /** Whether the current event already had a data line (the next one is joined with a newline). */
    private boolean eventHasData;

    // what was reported: the most seen of each part
    private long input = -1;
    private long output = -1;
    private long total = -1;

    private AnswerUsage(Framing framing) {
        this.framing = framing;
    }

    /** A reader of one answer framed as {@code framing}. */
    public static AnswerUsage of(Framing framing) {
        return new AnswerUsage(framing);
    }

    /** For {@link Framing#ITEMS}: whether each item is one JSON document, once the first item that is not blank said. */
    private Boolean documents;

    /** Reads the next item of a stream framed as {@link Framing#ITEMS}. */
    public void item(CharSequence text) {
        int from = itemStart(text, null, 0, text.length());
        if (from < 0) {
            return;
        }
        if (documents) {
            json.reset();
        }
        for (int i = documents ? from : 0; i < text.length(); i++) {
            char c = text.charAt(i);
            // a character beyond ASCII is inside a string or not JSON at all: no structural byte may come of it
            byte b = c < 0x80 ? (byte) c : (byte) 0x80;
            if (documents) {
                json.accept(b);
            } else {
                sse(b);
            }
        }
    }

    /** Reads the next item of a stream framed as {@link Framing#ITEMS}, in bytes (UTF-8). */
    public void item(byte[] bytes, int offset, int length) {
        int from = itemStart(null, bytes, offset, offset + length);
        if (from < 0) {
            return;
        }
        if (documents) {
            json.reset();
            for (int i = from; i < offset + length; i++) {
                json.accept(bytes[i]);
            }
        } else {
            for (int i = offset; i < offset + length; i++) {
                sse(bytes[i]);
            }
        }
    }

    /**
     * Where an item's content starts (its first byte that is not blank), deciding on the first such item whether items are
     * documents; -1 for a blank item while that is not decided.
     */
    private int itemStart(CharSequence text, byte[] bytes, int from, int to) {
        if (framing != Framing.ITEMS) {
            throw new IllegalStateException("items are read from a stream of items, not " + framing);
        }
        int i = from;
        while (i < to && isBlank(text != null ? text.charAt(i) : (char) bytes[i])) {
            i++;
        }
        if (documents == null) {
            if (i == to) {
                return -1;
            }
            documents = (text != null ? text.charAt(i) : (char) bytes[i]) == '{';
        }
        return i;
    }

    private static boolean isBlank(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\r';
    }

    /**
     * For {@link Framing#JSON}: the bytes that follow are another JSON document of the same answer (the data of a stream's
     * next event, fed as it is read); what the documents before it reported is kept, the most of each part.
     */
    public void nextDocument() {
        if (framing != Framing.JSON) {
            throw new IllegalStateException("documents follow one another in an answer read as JSON, not " + framing);
        }
        json.reset();
    }

    /** Reads the next bytes of the answer. */
    public void feed(byte[] bytes, int offset, int length) {
        for (int i = offset; i < offset + length; i++) {
            feed(bytes[i]);
        }
    }

    /** Reads the next byte of the answer. */
    public void feed(byte b) {
        if (framing == Framing.ITEMS) {
            throw new IllegalStateException("a stream of items is read an item at a time");
        }
        if (framing == Framing.JSON) {
            json.accept(b);
        } else {
            sse(b);
        }
    }

    /** {@link #feed(byte[], int, int)} of a whole array. */
    public void feed(byte[] bytes) {
        feed(bytes, 0, bytes.length);
    }

    /** What the answer reported so far, or {@code null} when it reported nothing. */
    public Tokens tokens() {
        return input < 0 && output < 0 && total < 0 ? null : new Tokens(input, output, total);
    }

    private void sse(byte b) {
        if (b == '\n' && lastWasCr) { // CRLF: the CR ended the line
            lastWasCr = false;
            return;
        }
        lastWasCr = b == '\r';
        boolean end = b == '\n' || b == '\r';
        switch (line) {
            case LINE_START -> {
                if (end) { // a blank line ends the event
                    endEvent();
                } else if (b == ':') {
                    line = SKIP_LINE; // a comment
                } else {
                    fieldLength = 0;
                    field[fieldLength++] = b;
                    line = FIELD;
                }
            }
            case FIELD -> {
                if (end) { // a field with no value: nothing to read
                    line = LINE_START;
                } else if (b == ':') {
                    line = isData() ? AFTER_COLON : SKIP_LINE;
                } else if (fieldLength < MAX_FIELD) {
                    field[fieldLength++] = b;
                } else {
                    line = SKIP_LINE;
                }
            }
            case AFTER_COLON -> {
                if (eventHasData) {
                    json.accept((byte) '\n');
                }
                eventHasData = true;
                if (end) {
                    line = LINE_START;
                } else {
                    line = DATA;
                    if (b != ' ') { // one space after the colon is not part of the value
                        json.accept(b);
                    }
                }
            }
            case DATA -> {
                if (end) {
                    line = LINE_START;
                } else {
                    json.accept(b);
                }
            }
            default -> { // SKIP_LINE
                if (end) {
                    line = LINE_START;
                }
            }
        }
    }

    private boolean isData() {
        return fieldLength == 4 && field[0] == 'd' && field[1] == 'a' && field[2] == 't' && field[3] == 'a';
    }

    private void endEvent() {
        json.reset();
        eventHasData = false;
    }

    /** One usage object's counts, read: the most of each part is kept. */
    private void reported(long in, long out, long all) {
        input = Math.max(input, in);
        output = Math.max(output, out);
        total = Math.max(total, all);
    }

    /**
     * A JSON tokenizer that keeps only what finding the usage needs: the names of the objects it is in, and the numbers
     * of a usage object's fields. After a byte it cannot read as JSON it reads nothing more of that document.
     */
    private final class Json {
        private static final int VALUE = 0; // expecting a value (or, in an object, a name)
        private static final int IN_STRING = 1;
        private static final int IN_NUMBER = 2;
        private static final int IN_LITERAL = 3;
        private static final int BROKEN = 4;

        private int state = VALUE;
        private boolean escaped;
        /** Whether the string being read is a name (in an object, before its colon). */
        private boolean readingName;
        private final byte[] name = new byte[MAX_NAME];
        private int nameLength;
        private boolean nameTooLong;
        /** The number being read, capped at {@link DecisionStore#MAX_SETTLED}, and whether it is a whole count so far. */
        private long digits;
        private boolean whole;

        /** Per depth: whether it is an object, whether a name was read and awaits its value, and that name's kind. */
        private final boolean[] isObject = new boolean[MAX_DEPTH + 1];
        private final boolean[] expectingName = new boolean[MAX_DEPTH + 1];
        private final int[] key = new int[MAX_DEPTH + 1];
        private int depth;
        /** Deeper than {@link #MAX_DEPTH}: counted, not tracked. */
        private int beyond;

        // the usage object being read, at usageDepth (0: none)
        private int usageDepth;
        private long in;
        private long cacheIn;
        private long out;
        private long all;

        // what a name is, for the reader
        private static final int OTHER = 0;
        private static final int USAGE = 1;
        private static final int RESPONSE = 2;
        private static final int MESSAGE = 3;
        private static final int INPUT = 4;
        private static final int CACHE_INPUT = 5;
        private static final int OUTPUT = 6;
        private static final int TOTAL = 7;

        /** The names read, and what each is. */
        private static final byte[][] NAMES = names("usage", "response", "message", "prompt_tokens", "input_tokens",
                "cache_creation_input_tokens", "cache_read_input_tokens", "completion_tokens", "output_tokens",
                "total_tokens");
        private static final int[] KINDS = { USAGE, RESPONSE, MESSAGE, INPUT, INPUT, CACHE_INPUT, CACHE_INPUT, OUTPUT, OUTPUT,
                TOTAL };

        private static byte[][] names(String... names) {
            byte[][] bytes = new byte[names.length][];
            for (int i = 0; i < names.length; i++) {
                bytes[i] = names[i].getBytes(java.nio.charset.StandardCharsets.US_ASCII);
            }
            return bytes;
        }

        void reset() {
            state = VALUE;
            depth = 0;
            beyond = 0;
            usageDepth = 0;
            escaped = false;
        }

        void accept(byte b) {
            switch (state) {
                case IN_STRING -> string(b);
                case IN_NUMBER -> {
                    if (b >= '0' && b <= '9') {
                        digits = Math.min(digits > DecisionStore.MAX_SETTLED / 10 ? DecisionStore.MAX_SETTLED
                                : digits * 10 + (b - '0'), DecisionStore.MAX_SETTLED);
                    } else if (b == '-' || b == '+' || b == '.' || b == 'e' || b == 'E') {
                        whole = false; // a fraction or an exponent: no count
                    } else {
                        numberRead();
                        state = VALUE;
                        structural(b);
                    }
                }
                case IN_LITERAL -> {
                    if (b >= 'a' && b <= 'z') {
                        return;
                    }
                    state = VALUE;
                    structural(b);
                }
                case VALUE -> structural(b);
                default -> {
                }
            }
        }

        private void structural(byte b) {
            switch (b) {
                case ' ', '\t', '\n', '\r', ',' -> {
                    if (b == ',' && depth > 0 && depth <= MAX_DEPTH && beyond == 0 && isObject[depth]) {
                        expectingName[depth] = true;
                    }
                }
                case ':' -> {
                }
                case '{', '[' -> open(b == '{');
                case '}', ']' -> close();
                case '"' -> {
                    state = IN_STRING;
                    escaped = false;
                    readingName = inObject() && expectingName[depth];
                    nameLength = 0;
                    nameTooLong = false;
                }
                default -> {
                    if ((b >= '0' && b <= '9') || b == '-') {
                        state = IN_NUMBER;
                        whole = b != '-'; // a negative number is no count
                        digits = whole ? b - '0' : 0;
                    } else if (b == 't' || b == 'f' || b == 'n') {
                        state = IN_LITERAL;
                    } else {
                        state = BROKEN;
                    }
                }
            }
        }

        private boolean inObject() {
            return depth > 0 && depth <= MAX_DEPTH && beyond == 0 && isObject[depth];
        }

        private void open(boolean object) {
            int parentKey = inObject() ? key[depth] : OTHER;
            if (depth == MAX_DEPTH || beyond > 0) {
                beyond++;
                return;
            }
            depth++;
            isObject[depth] = object;
            expectingName[depth] = object;
            key[depth] = OTHER;
            // a usage object: at the top, or in a Responses stream's response, or in Anthropic's message_start message
            if (object && parentKey == USAGE && usageDepth == 0 && usageHere()) {
                usageDepth = depth;
                in = -1;
                cacheIn = -1;
                out = -1;
                all = -1;
            }
        }

        /** Whether the object opening at the current depth is where a usage object is read. */
        private boolean usageHere() {
            if (depth == 2) {
                return true; // {"usage": {...}}
            }
            return depth == 3 && (key[1] == RESPONSE || key[1] == MESSAGE); // {"response": {"usage": {...}}}
        }

        private void close() {
            if (beyond > 0) {
                beyond--;
                return;
            }
            if (depth == 0) {
                state = BROKEN;
                return;
            }
            if (depth == usageDepth) {
                long inputs = in < 0 && cacheIn < 0 ? -1 : Math.max(0, in) + Math.max(0, cacheIn);
                reported(Math.min(inputs, DecisionStore.MAX_SETTLED), out, all);
                usageDepth = 0;
            }
            depth--;
        }

        private void string(byte b) {
            if (escaped) {
                escaped = false;
                collect(b);
                return;
            }
            if (b == '\\') {
                escaped = true;
                nameTooLong |= readingName; // an escaped name is none of the names read here
                return;
            }
            if (b == '"') {
                state = VALUE;
                if (readingName) {
                    key[depth] = nameTooLong ? OTHER : kindOf();
                    expectingName[depth] = false;
                }
                return;
            }
            collect(b);
        }

        private void collect(byte b) {
            if (!readingName) {
                return;
            }
            if (nameLength < MAX_NAME) {
                name[nameLength++] = b;
            } else {
                nameTooLong = true;
            }
        }

        /** What the name just read is ({@link #NAMES}), compared byte by byte: an answer's names allocate nothing. */
        private int kindOf() {
            for (int k = 0; k < NAMES.length; k++) {
                if (java.util.Arrays.equals(name, 0, nameLength, NAMES[k], 0, NAMES[k].length)) {
                    return KINDS[k];
                }
            }
            return OTHER;
        }

        private void numberRead() {
            if (usageDepth != 0 && depth == usageDepth && beyond == 0 && whole) {
                long n = digits;
                switch (key[depth]) {
                    case INPUT -> in = Math.max(in, n);
                    case CACHE_INPUT -> cacheIn = Math.min(Math.max(0, cacheIn) + n, DecisionStore.MAX_SETTLED);
                    case OUTPUT -> out = Math.max(out, n);
                    case TOTAL -> all = Math.max(all, n);
                    default -> {
                    }
                }
            }
        }
    }
}

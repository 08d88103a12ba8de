package dev.slidegate.testing;

import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/**
 * A minimal blocking RESP2 client for test assertions (ZCARD, PTTL, SCRIPT FLUSH, ...), independent
 * of the client under test. Replies: String, Long, List, null; errors throw.
 */
public final class Resp implements AutoCloseable {

    private final Socket socket;
    private final InputStream in;
    private final OutputStream out;

    public Resp(int port) {
        try {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(10_000);
            in = new BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public synchronized Object call(String... args) {
        try {
            StringBuilder sb = new StringBuilder("*").append(args.length).append("\r\n");
            for (String a : args) {
                byte[] b = a.getBytes(StandardCharsets.UTF_8);
                sb.append('$').append(b.length).append("\r\n").append(a).append("\r\n");
            }
            out.write(sb.toString().getBytes(StandardCharsets.UTF_8));
            out.flush();
            return read();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    public long number(String... args) {
        return (Long) call(args);
    }

    private Object read() throws IOException {
        int type = in.read();
        String line = line();
        switch (type) {
            case '+':
                return line;
            case '-':
                throw new IllegalStateException("Redis error: " + line);
            case ':':
                return Long.parseLong(line);
            case '$': {
                int len = Integer.parseInt(line);
                if (len < 0) {
                    return null;
                }
                byte[] b = in.readNBytes(len + 2);
                return new String(b, 0, len, StandardCharsets.UTF_8);
            }
            case '*': {
                int n = Integer.parseInt(line);
                if (n < 0) {
                    return null;
                }
                List<Object> items = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    items.add(read());
                }
                return items;
            }
            default:
                throw new IOException("unexpected RESP type " + type);
        }
    }

    private String line() throws IOException {
        StringBuilder sb = new StringBuilder();
        int c;
        while ((c = in.read()) != '\r') {
            if (c < 0) {
                throw new IOException("connection closed");
            }
            sb.append((char) c);
        }
        in.read(); // \n
        return sb.toString();
    }

    /** Every key of this server matching {@code pattern}, by {@code SCAN} (never {@code KEYS}). */
    @SuppressWarnings("unchecked")
    public List<String> scan(String pattern) {
        List<String> keys = new ArrayList<>();
        String cursor = "0";
        do {
            List<Object> reply = (List<Object>) call("SCAN", cursor, "MATCH", pattern, "COUNT", "1000");
            cursor = (String) reply.get(0);
            ((List<Object>) reply.get(1)).forEach(k -> keys.add((String) k));
        } while (!"0".equals(cursor));
        return keys;
    }

    @Override
    public void close() {
        try {
            socket.close();
        } catch (IOException ignored) {
            // closing a test connection
        }
    }
}

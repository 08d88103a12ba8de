package dev.slidegate.redis;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * A Lua script from {@code src/main/resources/slidegate/lua/}, read once, with the SHA-1 that Redis
 * knows it by.
 *
 * @param name the file name, for messages
 * @param body the script text
 * @param sha1 lowercase hex SHA-1 of the body, as {@code SCRIPT LOAD} would answer
 */
public record LuaScript(String name, String body, String sha1) {

    /**
     * Loads {@code slidegate/lua/<file>} from the class path; a line {@code --#include <other file>} is
     * replaced by that file's text (Redis has no includes: the batch script carries every strategy's).
     */
    public static LuaScript load(String file) {
        return of(file, read(file));
    }

    private static String read(String file) {
        String path = "slidegate/lua/" + file;
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + path + " is missing from the class path");
            }
            String text = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            StringBuilder out = new StringBuilder(text.length());
            for (String line : text.split("\n", -1)) {
                if (line.startsWith(INCLUDE)) {
                    String included = line.substring(INCLUDE.length()).trim();
                    if (included.equals(file)) {
                        throw new IllegalStateException("Lua script " + path + " includes itself");
                    }
                    out.append(read(included));
                } else {
                    out.append(line);
                }
                out.append('\n');
            }
            return out.substring(0, out.length() - 1);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }

    private static final String INCLUDE = "--#include ";

    /**
     * This script with the server's time moved {@code aheadMicros} ahead: every {@code redis.call('TIME')} reads the
     * server's {@code TIME} plus that (a test that advanced Slidegate's clock, {@link dev.slidegate.core.Clock#aheadMicros}).
     * A script of its own, with its own SHA-1, for each distance.
     */
    public LuaScript ahead(long aheadMicros) {
        String shifted = "local function slidegate_time()\n"
                + "  local t = redis.call('TIME')\n"
                + "  local us = tonumber(t[2]) + " + aheadMicros + "\n"
                + "  local s = tonumber(t[1]) + math.floor(us / 1000000)\n"
                + "  return {string.format('%d', s), string.format('%d', us % 1000000)}\n"
                + "end\n" + body.replace(TIME, "slidegate_time()");
        return of(name, shifted);
    }

    private static final String TIME = "redis.call('TIME')";

    /** A script made in code, named {@code name} in messages. */
    public static LuaScript of(String name, String body) {
        return new LuaScript(name, body, sha1(body));
    }

    private static String sha1(String body) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-1").digest(body.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-1 is not available", e);
        }
    }
}

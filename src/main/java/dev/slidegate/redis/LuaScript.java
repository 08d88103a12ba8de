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

    /** Loads {@code slidegate/lua/<file>} from the class path. */
    public static LuaScript load(String file) {
        String path = "slidegate/lua/" + file;
        try (InputStream in = LuaScript.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) {
                throw new IllegalStateException("Lua script " + path + " is missing from the class path");
            }
            return of(file, new String(in.readAllBytes(), StandardCharsets.UTF_8));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + path, e);
        }
    }

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

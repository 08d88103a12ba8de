package dev.slidegate.testing;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

import io.restassured.RestAssured;
import io.restassured.specification.RequestSpecification;

/** The demo's admin user (application.properties), as every test that calls the admin signs in. */
public final class AdminCredentials {

    public static final String USER = "admin";
    public static final String PASSWORD = "slidegate-demo";

    private AdminCredentials() {
    }

    /** A RestAssured request signed in as the admin (preemptive HTTP Basic). */
    public static RequestSpecification admin() {
        return RestAssured.given().auth().preemptive().basic(USER, PASSWORD);
    }

    /** The {@code Authorization} header value of the admin. */
    public static String basicHeader() {
        return "Basic " + Base64.getEncoder().encodeToString((USER + ":" + PASSWORD).getBytes(StandardCharsets.UTF_8));
    }

    /** {@code admin:slidegate-demo@}: the user part of a URL, for a browser. */
    public static String inUrl() {
        return USER + ":" + PASSWORD + "@";
    }
}

package dev.slidegate.demo;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Named;

import dev.slidegate.api.KeyResolver;

/**
 * The demo login's second key ({@code key=login-user}): the user name an attempt names, so that failed attempts on one
 * account are limited from every address together, as the {@code login} policy limits those of one address on every
 * account. A body without a user name has the key {@code (none)} (the attempt is answered 400, which counts nothing).
 */
@ApplicationScoped
@Named("login-user")
public class LoginUserKey implements KeyResolver {

    @Override
    public String resolve(Call call) {
        Object body = call.arguments().length > 0 ? call.arguments()[0] : null;
        String user = body instanceof Credentials c ? c.username() : null;
        return user == null || user.isBlank() ? "(none)" : user;
    }
}

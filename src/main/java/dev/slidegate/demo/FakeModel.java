package dev.slidegate.demo;

import java.time.Duration;

import jakarta.enterprise.context.ApplicationScoped;

import io.smallrye.mutiny.Multi;

/**
 * A stand-in for a language model, so that the demo runs without one: it answers a prompt with tokens (words), as many
 * as the prompt asks for at most, streamed a few milliseconds apart. How many it produces is known only once it is
 * done: a prompt's answer is 1 to {@code maxTokens} tokens long, the same for the same prompt.
 */
@ApplicationScoped
public class FakeModel {

    private static final String[] WORDS = { "rate", "limits", "keep", "a", "service", "fair", "for", "every", "caller",
            "and", "exact", "across", "the", "fleet" };

    /** How many tokens the answer to {@code prompt} has, at most {@code maxTokens} (at least 1). */
    public int answerLength(String prompt, int maxTokens) {
        return 1 + Math.floorMod(prompt.hashCode() * 31 + maxTokens, maxTokens);
    }

    /** The answer to {@code prompt}, one token per item, {@code delay} apart (none: at once). */
    public Multi<String> complete(String prompt, int maxTokens, Duration delay) {
        int length = answerLength(prompt, maxTokens);
        Multi<Integer> tokens = Multi.createFrom().range(0, length);
        if (!delay.isZero()) {
            tokens = tokens.onItem().call(i -> io.smallrye.mutiny.Uni.createFrom().voidItem().onItem().delayIt().by(delay));
        }
        return tokens.map(i -> WORDS[Math.floorMod(prompt.hashCode() + i, WORDS.length)]);
    }
}

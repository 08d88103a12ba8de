package dev.slidegate.redis;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** Scripts are files; the batch script includes each strategy's, unchanged, under the number Java sends. */
class LuaScriptTest {

    @Test
    void theBatchScriptCarriesEveryStrategyAsItsOwnFile() {
        String batch = DecisionScripts.BATCH.body();
        assertEquals("batch.lua", DecisionScripts.BATCH.name());
        assertFalse(batch.lines().anyMatch(l -> l.startsWith("--#include")), "every include was replaced");
        int at = -1;
        for (LuaScript strategy : new LuaScript[] { DecisionScripts.SLIDING_LOG, DecisionScripts.FIXED_WINDOW,
                DecisionScripts.SLIDING_COUNTER, DecisionScripts.TOKEN_BUCKET }) {
            int found = batch.indexOf(strategy.body());
            assertTrue(found > at, strategy.name() + " is included, in its numbered place");
            at = found;
        }
    }

    @Test
    void aMissingIncludeIsNamed() {
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> LuaScript.load("test_missing_include.lua"));
        assertTrue(e.getMessage().contains("no_such_script.lua"), e.getMessage());
    }
}

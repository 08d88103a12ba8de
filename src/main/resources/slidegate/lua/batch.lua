-- Batch: several decisions in one script call, each decided exactly as its own call would decide it
-- (a script runs alone in Redis, so nothing comes between them), one after the other in the order
-- given. One decision's error is its own: it is caught and returned in its place, the others stand.
--
-- KEYS     every decision's keys, one decision after the other
-- ARGV[1]  how many decisions; then per decision: its script (1 sliding log, 2 fixed window,
--          3 sliding counter, 4 token bucket, 5 calls in flight), its key count, its ARGV count, its ARGV
--
-- Returns  per decision, its script's reply, or a string (the error it raised)
--
-- Only where every key lives on one server: a Redis Cluster routes each decision by its own slot.
-- Each strategy's script is included unchanged as a function of its own KEYS and ARGV: LuaScript.load
-- replaces each '--#include <file>' line with that file's text, and DecisionScripts checks that the
-- numbers here are its own.
--#include strategies.lua

local out = {}
for d, dec in ipairs(decisions_of(KEYS, ARGV)) do
  local r, err = run(dec)
  out[d] = r or err
end
return out

-- Every decision script as a function of its own KEYS and ARGV, by number: 1 sliding log, 2 fixed window,
-- 3 sliding counter, 4 token bucket, 5 calls in flight (batch.lua and group.lua include this; DecisionScripts checks
-- that the numbers are its own).
local strategies = {}
strategies[1] = function(KEYS, ARGV)
--#include sliding_log.lua
end
strategies[2] = function(KEYS, ARGV)
--#include fixed_window.lua
end
strategies[3] = function(KEYS, ARGV)
--#include sliding_counter.lua
end
strategies[4] = function(KEYS, ARGV)
--#include token_bucket.lua
end
strategies[5] = function(KEYS, ARGV)
--#include concurrency.lua
end
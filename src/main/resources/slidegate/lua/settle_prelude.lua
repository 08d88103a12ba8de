-- What every settle script shares (included by settle_<strategy>.lua, one per strategy that settles): charge a
-- call's actual usage instead of its estimate, now that it is known (a policy with settle).
--
-- KEYS[1]  the hash of one (policy, key): a fixed window's, a sliding counter's or a token bucket's (their scripts
--          describe the fields)
-- ARGV[1]  the instant the call was admitted at (us): where its estimate was charged
-- ARGV[2]  actual usage - estimate (permits): more than 0 charges the rest, less than 0 refunds
-- ARGV[3]  cells per window (sliding counter), else 0
-- ARGV[4], ARGV[5], ...  token bucket: N and W (microseconds) of each limit in force, so that a bucket full again
--          (its key expired) is charged an overage too; fixed window: '<name>=<start>' for each limit counted per
--          calendar period, the start of the period that holds the admission
--
-- The difference goes where the estimate went, in every slot the hash keeps: the fixed window's counter when it still
-- counts the window of that instant; the sliding counter's cell of that instant when it is still kept; a token bucket
-- now (a refund never fills it past full, nor does a bucket already full gain anything). A count never goes below 0;
-- a window that no longer counts the admission is left alone. An overage keeps the key alive as long as its bucket
-- is drained.
--
-- Returns {now}
local key = KEYS[1]
local at = tonumber(ARGV[1])
local delta = tonumber(ARGV[2])
local cells = tonumber(ARGV[3])
local time = redis.call('TIME')
local now = tonumber(time[1]) * 1000000 + tonumber(time[2])
if delta == 0 then return {now} end

local function idiv(a, b) return (a - math.fmod(a, b)) / b end -- exact on doubles below 2^53

local all = redis.call('HGETALL', key)

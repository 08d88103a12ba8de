-- A decision's flags (every window strategy's script includes this; LuaScript.load puts it in place of its include
-- line): ARGV[2] is 2 * max-wait (us), + 1 when refused attempts are charged too (count-rejected), and may end in
-- '@<instant>' (us): the call is placed no earlier (a call of several policies, group.lua).
local flags, not_before = ARGV[2], 0
local nb = string.find(flags, '@', 1, true)
if nb then
  not_before = tonumber(string.sub(flags, nb + 1))
  flags = string.sub(flags, 1, nb - 1)
end
flags = tonumber(flags)
local count_rejected = flags % 2 == 1
local max_wait = (flags - flags % 2) / 2
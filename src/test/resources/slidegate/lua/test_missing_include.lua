-- a test script whose include is missing
--#include no_such_script.lua
return 1

class Log: pass

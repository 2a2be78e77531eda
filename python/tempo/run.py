def run(*a, **k): pass
def study(*a, **k): pass
class Result: pass
class RunError(Exception): pass

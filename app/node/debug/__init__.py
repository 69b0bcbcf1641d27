"""The SolidVM step debugger: a debug compile mode, sessions on their own thread, inspection.

``compiler`` (hooks around statements and bodies), ``engine`` (a session: pause, step,
breakpoints), ``inspection`` (stack, variables, evaluate), ``launch`` (what a session runs),
``overlay`` (a throwaway world over a node's committed state), ``platform`` and ``routes`` (the
node's REST routes), ``sources`` (files and lines of the compiled text).
"""

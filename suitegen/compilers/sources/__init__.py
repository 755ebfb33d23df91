"""Where a build's result comes from: sources behind one interface (``answer``: a ``request.Request`` to a result, or
None where the source has none), each in its own module, tried in the order ``SOURCES`` states; the first that
answers gives the result (``compile.cached_build``). A new source is a module with its ``answer`` and one line here."""
from suitegen.compilers.sources import cached, here, replayed, sibling, wider

# The cache, a replayed build store (which builds nothing), a sibling target's rejection, a wider build's acceptance,
# the build itself (which always answers).
SOURCES = (cached.answer, replayed.answer, sibling.answer, wider.answer, here.answer)

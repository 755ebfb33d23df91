"""Version history: every release of a range (``releases``), run or bisected to the first that changed a verdict."""

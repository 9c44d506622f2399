"""How a number and a figure look: units (a duration, a rate, a ratio in the unit that reads best) and the plot
helpers every figure uses. Knows nothing of runs or claims.

Imports nothing of the lab but the root package; every layer above may use it."""

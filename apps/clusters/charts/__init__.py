"""Charts of the clusters app as accessible SVG drawn on the server: `sizing` draws a sizing
result (bar charts and rack elevations), `own_or_rent` the cost of owning against
renting month by month."""

"""Pure engines for shipments: plain Python with typed dataclasses in and out, no Django imports.

Django code (models, services, views) adapts its rows to these inputs; the engines do the
arithmetic and say, in words, how they reached each answer.
"""

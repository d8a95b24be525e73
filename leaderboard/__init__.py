"""Human-judgment side of mtlb: ingest, QC, standardise, rank, longitudinal, storage."""

__version__ = "0.1.0"

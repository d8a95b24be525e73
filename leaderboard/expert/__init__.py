"""Expert human evaluation: MQM error annotations and ESA error spans (WMT23-24 style).

- :mod:`.mqm` reads the google/wmt-mqm-human-evaluation TSV layout into a validated error frame;
- :mod:`.weights` holds the named severity/category weight schemes;
- :mod:`.scoring` turns errors into segment and system MQM scores;
- :mod:`.ranking` ranks systems by MQM with paired significance tests and clusters;
- :mod:`.esa` keeps the error spans of Appraise ESA exports and ranks with the WMT24 protocol;
- :mod:`.spans` marks spans in output text as escaped HTML.
"""

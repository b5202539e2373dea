"""`jupiter dashboard`: a local web page on a domain's run, updating while the run goes on."""

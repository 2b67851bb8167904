# Clients trust the CA that re-signs HTTPS the Worker intercepts (the
# workspace's network policy). The Workspace writes it after every start into
# the system bundle (curl, git, Python's ssl) and into the file Node reads;
# without interception that file is empty (worker/network/ca-trust.ts).
export NODE_EXTRA_CA_CERTS=/etc/cloud-ide/egress-ca.crt
export PIP_CERT=/etc/ssl/certs/ca-certificates.crt
export REQUESTS_CA_BUNDLE=/etc/ssl/certs/ca-certificates.crt
export SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt

"""Never answers: lab/sandbox_test.sh checks the harness kills it at the time limit."""
while True:
    pass

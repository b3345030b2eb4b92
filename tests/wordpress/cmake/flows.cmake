# The flows (tests/wordpress/flows/README.md): the same install and a person's flows on stock
# WordPress/MariaDB and on the Berth drop-in/PostgreSQL, every statement's outcome compared.
# It starts its own MariaDB, PostgreSQL (with_postgres.sh) and two `php -S`: about a minute.
add_test(NAME wordpress/differ COMMAND ${CMAKE_SOURCE_DIR}/tests/wordpress/flows/differ)
set_tests_properties(wordpress/differ PROPERTIES LABELS e2e TIMEOUT 900)

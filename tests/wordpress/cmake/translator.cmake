# The MySQL-to-PostgreSQL translator of the WordPress drop-in (plugins/templates/wordpress/
# payload/wp-content/berth-pgsql: Catalog, Translator and its writers, support.sql): the
# captured corpus replayed on a real PostgreSQL as a project's own role with MariaDB's
# outcomes, MySQL's semantics by their results, and the refusals (tests/wordpress/translator).
add_test(NAME wordpress/translator
         COMMAND ${CMAKE_SOURCE_DIR}/tests/support/with_postgres.sh
                 phpunit --colors=never -c ${CMAKE_SOURCE_DIR}/tests/wordpress/translator/phpunit.xml)
set_tests_properties(wordpress/translator PROPERTIES LABELS unit TIMEOUT 300)

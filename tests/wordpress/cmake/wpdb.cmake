# The wpdb drop-in (plugins/templates/wordpress/payload/wp-content/db.php and berth-pgsql/Wpdb.php):
# its unit tests against a real PostgreSQL, then Debian's WordPress installed with wp_install()
# on it and served by `php -S` (tests/wordpress/wpdb/WordPressSiteTest.php).
add_test(NAME wordpress/wpdb
         COMMAND ${CMAKE_SOURCE_DIR}/tests/support/with_postgres.sh
                 phpunit --colors=never -c ${CMAKE_SOURCE_DIR}/tests/wordpress/wpdb/phpunit.xml)
set_tests_properties(wordpress/wpdb PROPERTIES LABELS unit TIMEOUT 600)

# The installer's payload (plugins/templates/wordpress/payload: build.sh, wp-config.php, the
# must-use plugin, .berth/install.php) on a real PostgreSQL: the tree built from Debian's
# WordPress, a site installed and installed again, the failures, the settings.
add_test(NAME wordpress/installer_payload
         COMMAND ${CMAKE_SOURCE_DIR}/tests/support/with_postgres.sh
                 phpunit --colors=never -c ${CMAKE_SOURCE_DIR}/tests/wordpress/installer/phpunit.xml)
set_tests_properties(wordpress/installer_payload PROPERTIES LABELS unit TIMEOUT 600)

<?php

declare(strict_types=1);

require_once __DIR__ . '/../../../plugins/templates/wordpress/payload/wp-content/berth-pgsql/autoload.php';
require_once __DIR__ . '/ProjectSchema.php';

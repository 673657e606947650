# regress/orm/gen_django.py: the statements Django 3.2 (psycopg2) sends for
# the shapes of regress/sql/advice_orm.sql, as the server receives them
# (cursor.query after execution, not str(queryset.query)).  Creates
# orm_announcement (models.py) in a throwaway database and prints each
# shape's statement.  usage: PGHOST=... PGPORT=... /usr/bin/python3 gen_django.py
import os
import django
from django.conf import settings
settings.configure(
    DATABASES={'default': {'ENGINE': 'django.db.backends.postgresql', 'NAME': os.environ.get('PGDATABASE', 'ormgen'),
                           'HOST': os.environ.get('PGHOST', ''), 'PORT': os.environ.get('PGPORT', '')}},
    INSTALLED_APPS=['django.contrib.contenttypes', 'django.contrib.postgres', 'orm'],
    USE_TZ=True, DEFAULT_AUTO_FIELD='django.db.models.AutoField')
import sys; sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
django.setup()
from django.db import connection
from django.db.models import Q
from django.db.models.functions import Lower
from django.db.models.fields.json import KeyTextTransform
from orm.models import Announcement
A = Announcement.objects
shapes = {
 'or_contains': A.filter(Q(scope_ids__contains=[3]) | Q(scope_ids__contains=[22])).order_by('-display_time')[:20],
 'or_has_key': A.filter(Q(tags__has_key='urgent') | Q(tags__has_key='pinned')),
 'or_overlap': A.filter(Q(labels__overlap=['exam']) | Q(labels__overlap=['deadline'])),
 'or_eq': A.filter(Q(status='draft') | Q(status='review')),
 'or_range': A.filter(Q(priority__lt=2) | Q(priority__gt=997)),
 'or_columns': A.filter(Q(author_id=5) | Q(editor_id=5)),
 'in_list': A.filter(status__in=['draft', 'review']).order_by('-display_time')[:20],
 'not_bool': A.filter(is_deleted=False, university_id=7),
 'exclude_nullable': A.exclude(is_pinned=True).filter(university_id=7),
 'startswith': A.filter(slug__startswith='exam-'),
 'istartswith': A.filter(title__istartswith='exam'),
 'iexact': A.filter(email__iexact='Ann@Example.com'),
 'lower': A.annotate(le=Lower('email')).filter(le='ann@example.com'),
 'json_key': A.filter(data__kind='quiz'),
 'json_keytext': A.annotate(k=KeyTextTransform('kind', 'data')).filter(k='quiz'),
}
from django.core.management import call_command
call_command('migrate', run_syncdb=True, verbosity=0)
for name, qs in shapes.items():
    with connection.cursor() as cur:
        sql, params = qs.query.sql_with_params()
        cur.execute(sql, params)
        print('--', name); print(cur.cursor.query.decode() + ';')

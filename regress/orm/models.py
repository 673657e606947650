# regress/orm/models.py: the Django model behind orm_announcement (app "orm").
from django.db import models
from django.contrib.postgres.fields import ArrayField
class Announcement(models.Model):
    university_id = models.IntegerField()
    author_id = models.IntegerField()
    editor_id = models.IntegerField(null=True)
    title = models.CharField(max_length=200)
    slug = models.CharField(max_length=200)
    email = models.CharField(max_length=200)
    status = models.CharField(max_length=20)
    priority = models.IntegerField()
    is_deleted = models.BooleanField(default=False)
    is_pinned = models.BooleanField(null=True)
    display_time = models.DateTimeField()
    scope_ids = models.JSONField(default=list)
    tags = models.JSONField(default=dict)
    data = models.JSONField(default=dict)
    labels = ArrayField(models.TextField(), default=list)
    class Meta:
        app_label = 'orm'
